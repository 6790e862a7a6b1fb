use autodiff::differentiable;

#[differentiable]
fn sincos(t: f64) -> (f64, f64) {
    (t.sin(), t.cos())
}

#[differentiable]
fn f(t: f64) -> f64 {
    let p = sincos(t);
    p.0 * p.1
}

fn main() {}
