use autodiff::differentiable;

// `&x[i]` of a slice of floats: a reference to an element (a matrix's row `&m[i]` is supported).
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let _r = &x[1];
    x[0] * 2.0
}

fn main() {}
