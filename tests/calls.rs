use autodiff::{differentiable, Float};

mod helpers {
    use autodiff::{differentiable, Float};

    #[differentiable]
    pub fn square<T: Float>(x: T) -> T {
        x * x
    }

    #[differentiable]
    pub fn sumsq(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += v * v;
        }
        s
    }

    #[differentiable]
    pub fn polar(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }

    #[differentiable]
    pub fn scaled(x: &[f64], a: f64) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = a * x[i];
        }
        out
    }
}

use helpers::{polar, scaled, square, sumsq};

#[differentiable]
fn uses_square(x: f64, y: f64) -> f64 {
    square(x) * y + helpers::square(y)
}

#[differentiable]
fn uses_generic<T: Float>(x: T) -> T {
    square::<T>(x.sin())
}

#[differentiable]
fn uses_slices(x: &[f64], a: f64) -> f64 {
    let v: Vec<f64> = scaled(x, a);
    sumsq(&v) + sumsq(x)
}

#[differentiable]
fn uses_tuple(r: f64, t: f64) -> f64 {
    let (a, b) = polar(r, t);
    a * b
}

#[differentiable(wrt(x))]
fn uses_int(x: f64, n: i32) -> f64 {
    square(x.powi(n))
}

#[test]
fn calls() {
    let (v, (dx, dy)) = uses_square_grad(3.0, 2.0);
    assert_eq!(v, uses_square(3.0, 2.0));
    assert_eq!((dx, dy), (12.0, 9.0 + 4.0));
    let (_, t) = uses_square_jvp(3.0, 2.0, (1.0, 0.0));
    assert_eq!(t, 12.0);
    let (v, g) = uses_generic_grad(0.5f64);
    assert!((v - 0.5f64.sin().powi(2)).abs() < 1e-15);
    assert!((g - 2.0 * 0.5f64.sin() * 0.5f64.cos()).abs() < 1e-15);
    let x = [1.0, 2.0];
    let (v, (gx, ga)) = uses_slices_grad(&x, 3.0);
    assert_eq!(v, uses_slices(&x, 3.0));
    assert_eq!(gx, vec![2.0 * 9.0 + 2.0, 4.0 * 9.0 + 4.0]);
    assert_eq!(ga, 2.0 * 3.0 * 5.0);
    let (_, tt) = uses_slices_jvp(&x, 3.0, (vec![1.0, 0.0], 0.0));
    assert_eq!(tt, gx[0]);
    let (v, (dr, dt)) = uses_tuple_grad(2.0, 0.3);
    assert_eq!(v, uses_tuple(2.0, 0.3));
    // f = r^2 cos t sin t = r^2 sin(2t)/2
    assert!((dr - 2.0 * (0.6f64).sin()).abs() < 1e-12);
    assert!((dt - 4.0 * (0.6f64).cos()).abs() < 1e-12);
    assert_eq!(uses_generic(0.5f64), 0.5f64.sin().powi(2));
    assert_eq!(uses_int(1.5, 3), 1.5f64.powi(6));
    let (_, g) = uses_int_grad(1.5, 3);
    assert!((g - 6.0 * 1.5f64.powi(5)).abs() < 1e-9);
}
