use autodiff::differentiable;

struct P {
    v: f64,
}

#[differentiable]
fn f(x: f64) -> f64 {
    let r = &x;
    let p = P { v: x };
    let _ = (r, p.v);
    x
}

fn main() {}
