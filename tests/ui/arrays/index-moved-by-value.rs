use autodiff::differentiable;

// The value of an assignment to an element changes a name the element's index uses: Rust evaluates the
// value first (for `f64 +=` too), so the element written is not the one the index names before it.
#[differentiable]
fn compound(x: &[f64], out: &mut [f64]) -> f64 {
    let mut i = 0;
    out[i] = x[0];
    out[i] += {
        i += 1;
        x[1]
    };
    out[0] * out[1]
}

#[differentiable]
fn plain(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    let mut i = 0;
    v[i] = {
        i += 1;
        x[0]
    };
    v[i] * x[1]
}

fn main() {}
