use autodiff::{check_gradient, custom_gradient, differentiable, Float};

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

// `order = K` on functions written for `f64`: through their generic shadow.

// `vec!` on purpose: the shadow rewrites the literals inside it.
#[allow(clippy::useless_vec)]
#[differentiable(order = 2)]
fn energy_f64(x: &[f64], k: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i];
        e += 0.5 * k * d * d + (x[i] * std::f64::consts::PI).sin() * f64::EPSILON.sqrt();
    }
    let buf = vec![0.0; 2];
    e + buf[0] + (x.len() as f64) * 1e-3
}

#[differentiable(order = 3)]
fn cubic(x: f64) -> f64 {
    x * x * x - 2.0 * x
}

#[test]
fn order_k_on_f64_functions() {
    let x = [0.3, -1.2, 0.8, 2.0];
    let (v, g, h) = energy_f64_hessian(&x, 1.5);
    let (v2, (gx, gk)) = energy_f64_grad(&x, 1.5);
    assert_eq!(v, v2);
    assert_eq!(g, (gx.clone(), gk));
    assert_eq!(v, energy_f64(&x, 1.5));
    let c = check_gradient(|z| energy_f64(z, 1.5), &x, &gx);
    assert!(c.is_ok(1e-6), "{c}");
    // Hessian against differences of the gradient.
    let n = x.len() + 1;
    assert_eq!(h.len(), n);
    for j in 0..x.len() {
        let mut xp = x.to_vec();
        let mut xm = x.to_vec();
        xp[j] += 1e-6;
        xm[j] -= 1e-6;
        let gp = energy_f64_grad(&xp, 1.5).1 .0;
        let gm = energy_f64_grad(&xm, 1.5).1 .0;
        for i in 0..x.len() {
            let fd = (gp[i] - gm[i]) / 2e-6;
            assert!((h[i][j] - fd).abs() < 1e-5, "{i} {j}: {} vs {fd}", h[i][j]);
        }
    }
    let (_, _, hv) = energy_f64_hvp(&x, 1.5, (vec![1.0, 0.0, 0.0, 0.0], 0.0));
    assert_eq!(hv.0[0], h[0][0]);
    assert_eq!(cubic_derivatives(2.0), [4.0, 10.0, 12.0, 6.0]);
    assert_eq!(cubic(2.0), 4.0);
}
