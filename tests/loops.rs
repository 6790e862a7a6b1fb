use autodiff::{check_gradient, differentiable, Float};

#[differentiable]
pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s
}

#[differentiable]
pub fn horner(c: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for &ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

#[differentiable]
pub fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    let mut n = 0;
    while (x * x - a).abs() > 1e-12 * a && n < 100 {
        x = 0.5 * (x + a / x);
        n += 1;
    }
    x
}

#[differentiable]
pub fn rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

#[differentiable]
pub fn running_max(x: &[f64]) -> f64 {
    let mut m = x[0];
    let mut total = 0.0;
    for &v in x {
        if v > m {
            m = v;
        }
        total += m;
    }
    total
}

#[differentiable]
pub fn sorted_weighted(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    let n = a.len();
    for i in 0..n {
        for j in 0..n - 1 - i {
            if a[j] > a[j + 1] {
                let t = a[j];
                a[j] = a[j + 1];
                a[j + 1] = t;
            }
        }
    }
    let mut s = 0.0;
    for (i, &v) in a.iter().enumerate() {
        s += (i as f64 + 1.0) * v;
    }
    s
}

#[differentiable]
pub fn squares(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}

#[differentiable]
pub fn find_first_big(x: &[f64], limit: f64) -> f64 {
    for &v in x {
        if v * v > limit {
            return v * 3.0;
        }
    }
    limit.sqrt()
}

fn fd_check(f: impl Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    let c = check_gradient(f, x, g);
    assert!(c.is_ok(1e-5), "{c}");
}

#[test]
fn smoke() {
    let x = [1.0, 2.0, 3.0];
    let y = [0.5, -1.0, 2.0];
    let (v, (gx, gy)) = dot_grad(&x, &y);
    assert_eq!(v, dot(&x, &y));
    assert_eq!(gx, y.to_vec());
    assert_eq!(gy, x.to_vec());
    let (v, (gc, gx)) = horner_grad(&x, 0.7);
    assert_eq!(v, horner(&x, 0.7));
    fd_check(|c| horner(c, 0.7), &x, &gc);
    assert!((gx - (2.0 + 2.0 * 3.0 * 0.7)).abs() < 1e-12, "{gx}");
    let (v, g) = newton_sqrt_grad(2.0);
    assert!((v - 2f64.sqrt()).abs() < 1e-12);
    assert!((g - 0.5 / 2f64.sqrt()).abs() < 1e-8, "{g}");
    let z = [1.2, -0.3, 0.8, 2.0, 0.1];
    let (v, g) = rosenbrock_grad(&z);
    assert_eq!(v, rosenbrock(&z));
    fd_check(|z| rosenbrock(z), &z, &g);
    let (_, g) = running_max_grad(&z);
    fd_check(running_max, &z, &g);
    let (_, g) = sorted_weighted_grad(&z);
    fd_check(sorted_weighted, &z, &g);
    let (v, g) = squares_vjp(&x, vec![1.0, 1.0, 2.0]);
    assert_eq!(v, squares(&x));
    assert_eq!(g, vec![2.0, 4.0, 12.0]);
    let (_, (g, gl)) = find_first_big_grad(&x, 3.0);
    assert_eq!(g, vec![0.0, 3.0, 0.0]);
    assert_eq!(gl, 0.0);
    let (_, (g, gl)) = find_first_big_grad(&x, 30.0);
    assert_eq!(g, vec![0.0, 0.0, 0.0]);
    assert!((gl - 0.5 / 30f64.sqrt()).abs() < 1e-12);
    let (_, t) = rosenbrock_jvp(&z, vec![1.0, 0.0, 0.0, 0.0, 0.0]);
    let (_, g) = rosenbrock_grad(&z);
    assert!((t - g[0]).abs() < 1e-9);
}
