use autodiff::differentiable;

// The body has one error; the callers of the generated items below must not add any.
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x.midpoint(1.0) * y
}

fn main() {
    let value: f64 = f(1.0, 2.0);
    let (v, (dx, dy)) = f_grad(1.0, 2.0);
    let (w, g) = f_vjp(1.0, 2.0, 1.0);
    let (u, t): (f64, f64) = f_jvp(1.0, 2.0, (1.0, 0.0));
    let _ = (value, v + dx + dy, w, g.0 + g.1, u + t);
}
