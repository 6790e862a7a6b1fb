use autodiff::differentiable;

// A slice of tuples is data (tests/forms20.rs): it has no gradient, and `wrt(..)` cannot name it.
#[differentiable(wrt(w, r))]
fn sparse(w: &[f64], r: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for &(i, v) in r {
        s += w[i] * v;
    }
    s
}

fn main() {}
