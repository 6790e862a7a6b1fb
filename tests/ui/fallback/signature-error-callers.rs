use autodiff::differentiable;

// The signature has an error, so the shapes of the generated items are not known; the callers must still
// get no error of their own.
#[differentiable(wrt(z))]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {
    let (v, dx) = f_grad(1.0, 2.0);
    let (w, g) = f_vjp(1.0, 2.0, 1.0);
    let (u, t) = f_jvp(1.0, 2.0, 1.0);
    let _ = (v, dx, w, g, u, t);
}
