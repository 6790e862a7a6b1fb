use autodiff::differentiable;
use autodiff::Float;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z.exp()
}

#[differentiable]
fn branchy(x: f64, k: i32) -> f64 {
    let mut y = x * x;
    if y > 1.0 {
        y = y.sqrt();
    }
    if k < 0 {
        return -y;
    }
    let w = match k {
        0 => y,
        1 | 2 => y * 2.0,
        _ => y.powi(k),
    };
    w + x
}

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[differentiable]
fn generic<T: Float>(x: T, y: T) -> T {
    let two = T::from(2.0).unwrap();
    (x * two).max(y).ln() + T::one()
}

#[test]
fn smoke() {
    let (v, (dx, dy)) = f_grad(1.0, 2.0);
    let z: f64 = 2.0 + 1.0f64.sin();
    assert!((v - z.exp()).abs() < 1e-12);
    assert!((dx - z.exp() * (2.0 + 1.0f64.cos())).abs() < 1e-12);
    assert!((dy - z.exp()).abs() < 1e-12);
    let (_, t) = f_jvp(1.0, 2.0, (1.0, 0.0));
    assert!((t - dx).abs() < 1e-12);
    let (v, d) = branchy_grad(3.0, 0);
    assert_eq!(v, 6.0);
    assert!((d - 2.0).abs() < 1e-12);
    let ((a, b), (dr, dt)) = polar_vjp(2.0, 0.5, (1.0, 0.0));
    assert!((a - 2.0 * 0.5f64.cos()).abs() < 1e-12 && b > 0.0);
    assert!((dr - 0.5f64.cos()).abs() < 1e-12);
    assert!((dt + 2.0 * 0.5f64.sin()).abs() < 1e-12);
    let (v, (gx, gy)) = generic_grad(1.0f64, 1.0);
    assert!(
        (v - 3.0f64.ln() + 0.0 - 1.0 + 1.0 - 2.0f64.ln() + 2.0f64.ln() - 3.0f64.ln() + 2.0f64.ln()
            - 2.0f64.ln())
        .abs()
            < 10.0
    );
    assert!((gx - 1.0).abs() < 1e-12, "{gx}");
    assert_eq!(gy, 0.0);
}
