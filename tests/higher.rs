use autodiff::{custom_gradient, differentiable, Float};

#[differentiable(order = 2)]
fn rosen<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

#[custom_gradient]
fn softplus<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let s = T::one() / (T::one() + (-x).exp());
    ((T::one() + x.exp()).ln(), move |dy: T| dy * s)
}

#[differentiable(order = 4)]
fn through_custom<T: Float>(x: T, k: usize) -> T {
    softplus(x) * T::from(k).unwrap()
}

#[differentiable(order = 2)]
fn mixed<T: Float>(a: T, w: [T; 2]) -> T {
    a * a * w[0] + (a * w[1]).sin()
}

#[test]
fn higher_order() {
    let x = [1.2, 0.7, -0.3];
    let (v, g, h) = rosen_hessian(&x);
    assert_eq!(v, rosen(&x));
    assert_eq!(g, rosen_grad(&x).1);
    // Analytic Hessian of the first term's block.
    assert!(
        (h[0][0] - (1200.0 * 1.2 * 1.2 - 400.0 * 0.7 + 2.0)).abs() < 1e-9,
        "{:?}",
        h
    );
    assert!((h[0][1] + 400.0 * 1.2).abs() < 1e-9);
    assert_eq!(h[0][1], h[1][0]);
    let (_, _, hv) = rosen_hvp(&x, vec![1.0, 0.0, 0.0]);
    assert_eq!(hv, h.iter().map(|r| r[0]).collect::<Vec<_>>());
    let d = through_custom_derivatives(0.3, 2);
    let s = 1.0 / (1.0 + (-0.3f64).exp());
    assert!((d[0] - 2.0 * (1.0 + 0.3f64.exp()).ln()).abs() < 1e-12);
    assert!((d[1] - 2.0 * s).abs() < 1e-12);
    assert!((d[2] - 2.0 * s * (1.0 - s)).abs() < 1e-12);
    assert!((d[3] - 2.0 * s * (1.0 - s) * (1.0 - 2.0 * s)).abs() < 1e-12);
    let (_, _, h) = mixed_hessian(0.5, [2.0, 3.0]);
    assert_eq!(h.len(), 3);
    assert!((h[0][0] - (2.0 * 2.0 - 9.0 * (1.5f64).sin())).abs() < 1e-12);
    assert_eq!(through_custom(0.3, 2), d[0]);
    assert_eq!(mixed(0.5, [2.0, 3.0]), 0.5 + 1.5f64.sin());
}
