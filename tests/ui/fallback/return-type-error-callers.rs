use autodiff::differentiable;

// The return type is unsupported, so the generated items have no known shape; callers that use them as a
// float function would must still get no error of their own.
#[differentiable]
fn f(x: f64) -> usize {
    x as usize
}

fn main() {
    let (v, dx): (f64, f64) = f_grad(1.0);
    let (w, g): (f64, f64) = f_vjp(1.0, 1.0);
    let (u, t): (f64, f64) = f_jvp(1.0, 1.0);
    let _ = (v, dx, w, g, u, t);
}
