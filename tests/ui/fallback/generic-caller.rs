use autodiff::{differentiable, Float};

// A generic function with an error in its body: callers of its generated items, at a concrete float type,
// get no error of their own.
#[differentiable]
fn f<T: Float>(x: T, y: T) -> T {
    x.abs_sub(y) * y
}

fn main() {
    let (v, (dx, dy)) = f_grad(1.0_f64, 2.0);
    let (w, (gx, gy)) = f_vjp(1.0_f32, 2.0, 1.0);
    let (u, t) = f_jvp(1.0_f64, 2.0, (1.0, 0.0));
    let _ = (v + dx + dy, w + gx + gy, u + t);
}
