use autodiff::{differentiable, Differentiable};

// After an error in the body of a function of a parameter struct with `order = 2`, the stand-ins of its
// items include `_hvp`, `_hessian` and `_derivatives`: the caller's uses of them add no error of their own
// (E0425 before), only the body's error is reported.
#[derive(Clone, Debug, Differentiable)]
struct Model {
    w: Vec<f64>,
}

#[differentiable(order = 2)]
fn f(p: &Model, x: f64) -> f64 {
    p.w[0] * x.midpoint(1.0)
}

fn main() {
    let m = Model { w: vec![1.0] };
    let (_, _, _) = f_hvp(&m, 1.0, (m.clone(), 1.0));
    let (_, _, h): (f64, (Model, f64), Vec<Vec<f64>>) = f_hessian(&m, 1.0);
    let _ = h;
}
