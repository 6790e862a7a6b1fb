//! Edge cases of `#[differentiable(order = K)]` (directly on generic functions and through the generic
//! shadow of `f64`/`f32` functions), of calls between differentiable functions, and of custom and
//! registered gradients. Every result is checked against an independent reference: central
//! differences of the value or of the gradient, nested `Dual` numbers on hand-written generic copies,
//! or analytic derivatives.

// Index loops and legacy constants are the constructs under test.
#![allow(
    clippy::needless_range_loop,
    clippy::legacy_numeric_constants,
    clippy::ptr_arg
)]

use autodiff::{check_gradient, custom_gradient, differentiable, gradient_of, Dual, Float};

// ---- references ----

type D2 = Dual<Dual<f64>>;

/// A nested dual number seeded for the second derivative along `(ei, ej)`.
fn d2(x: f64, ei: f64, ej: f64) -> D2 {
    Dual::new(Dual::new(x, ei), Dual::new(ej, 0.0))
}

/// The exact Hessian of `f` at `x` from nested duals: `H[i][j]` is the mixed derivative.
fn dual_hessian(f: impl Fn(&[D2]) -> D2, x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for (i, row) in h.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            let args: Vec<D2> = (0..n)
                .map(|k| {
                    d2(
                        x[k],
                        if k == i { 1.0 } else { 0.0 },
                        if k == j { 1.0 } else { 0.0 },
                    )
                })
                .collect();
            *cell = f(&args).eps.eps;
        }
    }
    h
}

/// The exact gradient of `f` at `x` from duals.
fn dual_gradient(f: impl Fn(&[Dual<f64>]) -> Dual<f64>, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let args: Vec<Dual<f64>> = (0..x.len())
                .map(|k| Dual::new(x[k], if k == i { 1.0 } else { 0.0 }))
                .collect();
            f(&args).eps
        })
        .collect()
}

/// The Hessian as central differences of a gradient.
fn fd_hessian(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for j in 0..n {
        let step = 1e-5 * x[j].abs().max(1.0);
        let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
        xp[j] += step;
        xm[j] -= step;
        let (gp, gm) = (grad(&xp), grad(&xm));
        for i in 0..n {
            h[i][j] = (gp[i] - gm[i]) / (2.0 * step);
        }
    }
    h
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1.0_f64.max(a.abs()).max(b.abs())
}

#[track_caller]
fn assert_close(a: f64, b: f64, tol: f64) {
    assert!(close(a, b, tol), "{a} vs {b} (tol {tol})");
}

#[track_caller]
fn assert_vec_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!(close(*x, *y, tol), "{a:?} vs {b:?} (tol {tol})");
    }
}

#[track_caller]
fn assert_mat_close(a: &[Vec<f64>], b: &[Vec<f64>], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (r, s) in a.iter().zip(b) {
        assert_vec_close(r, s, tol);
    }
}

#[track_caller]
fn assert_symmetric(h: &[Vec<f64>]) {
    for i in 0..h.len() {
        assert_eq!(h[i].len(), h.len());
        for j in 0..h.len() {
            assert!(close(h[i][j], h[j][i], 1e-12), "H not symmetric: {h:?}");
        }
    }
}

fn mat_vec(h: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    h.iter()
        .map(|r| r.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect()
}

/// The derivatives `[f, f', .., f^(k)]` of a scalar function by `k` nested duals, for k <= 4.
fn dual_derivatives4(
    f: impl Fn(Dual<Dual<Dual<Dual<f64>>>>) -> Dual<Dual<Dual<Dual<f64>>>>,
    x: f64,
) -> [f64; 5] {
    // x + e1 + e2 + e3 + e4 with nilpotent e's: the coefficient of e1e2e3e4 is f''''.
    let one = |re: f64, eps: f64| Dual::new(re, eps);
    let l1 = |re: f64, e: f64| Dual::new(one(re, e), one(1.0, 0.0));
    let _ = l1;
    let x0 = Dual::new(x, 1.0);
    let x1 = Dual::new(x0, Dual::new(1.0, 0.0));
    let x2 = Dual::new(x1, Dual::new(Dual::new(1.0, 0.0), Dual::new(0.0, 0.0)));
    let x3 = Dual::new(
        x2,
        Dual::new(
            Dual::new(Dual::new(1.0, 0.0), Dual::new(0.0, 0.0)),
            Dual::new(Dual::new(0.0, 0.0), Dual::new(0.0, 0.0)),
        ),
    );
    let y = f(x3);
    [
        y.re.re.re.re,
        y.re.re.re.eps,
        y.re.re.eps.eps,
        y.re.eps.eps.eps,
        y.eps.eps.eps.eps,
    ]
}

// ---- 1. literals in every position, through the f64 shadow ----

#[differentiable(order = 3)]
fn literals(x: f64) -> f64 {
    2.0_f64.powf(x) + x.max(0.0) + x.powi(2) + 3.5 * x - x / 4.0
        + (1.0 - x).exp()
        + x.min(1.5e0)
        + x.clamp(-1.0, 1.0)
        + x.mul_add(2.0, 1.0)
        + x.hypot(3.0)
        + 1.0f64.atan2(x)
        + f64::max(x, -2.0)
        + x.powf(2.5)
        - -1.0
}

fn literals_ref<T: Float>(x: T) -> T {
    let c = |v: f64| T::from(v).unwrap();
    c(2.0).powf(x) + x.max(c(0.0)) + x.powi(2) + c(3.5) * x - x / c(4.0)
        + (c(1.0) - x).exp()
        + x.min(c(1.5))
        + x.clamp(c(-1.0), c(1.0))
        + x.mul_add(c(2.0), c(1.0))
        + x.hypot(c(3.0))
        + c(1.0).atan2(x)
        + x.max(c(-2.0))
        + x.powf(c(2.5))
        + c(1.0)
}

#[test]
fn literals_everywhere() {
    for &x in &[0.3, 0.7, 1.2, 2.5] {
        let d = literals_derivatives(x);
        let r = dual_derivatives4(literals_ref, x);
        assert_eq!(d[0], literals(x));
        for k in 0..4 {
            assert_close(d[k], r[k], 1e-12);
        }
        let (v, g, h) = literals_hessian(x);
        assert_eq!(v, d[0]);
        assert_close(g, d[1], 1e-14);
        assert_close(h[0][0], d[2], 1e-14);
        let (_, g2, hv) = literals_hvp(x, 2.0);
        assert_eq!(g2, g);
        assert_close(hv, 2.0 * d[2], 1e-14);
    }
}

// ---- 2. constants ----

#[differentiable(order = 2)]
fn constants(x: f64, y: f64) -> f64 {
    let tau = 2.0 * std::f64::consts::PI;
    (x * tau).sin() * std::f64::consts::E
        + y * f64::EPSILON.sqrt() * 1e6
        + std::f64::consts::SQRT_2 * x * y
        + std::f64::consts::LN_2 * y * y
        + (x / f64::MAX).exp()
        + (1.0 / (f64::INFINITY + x)) * y
        + std::f64::EPSILON * x
        + core::f64::consts::FRAC_PI_2 * x * x * x
}

fn constants_ref<T: Float>(v: &[T]) -> T {
    let c = |a: f64| T::from(a).unwrap();
    let (x, y) = (v[0], v[1]);
    let tau = c(2.0) * c(std::f64::consts::PI);
    (x * tau).sin() * c(std::f64::consts::E)
        + y * c(f64::EPSILON.sqrt()) * c(1e6)
        + c(std::f64::consts::SQRT_2) * x * y
        + c(std::f64::consts::LN_2) * y * y
        + (x / c(f64::MAX)).exp()
        + c(f64::EPSILON) * x
        + c(std::f64::consts::FRAC_PI_2) * x * x * x
}

#[test]
fn consts_in_shadow() {
    let p = [0.3, -0.8];
    let (v, (gx, gy), h) = constants_hessian(p[0], p[1]);
    assert_close(v, constants(p[0], p[1]), 1e-15);
    let g = dual_gradient(constants_ref, &p);
    assert_vec_close(&[gx, gy], &g, 1e-13);
    let hr = dual_hessian(constants_ref, &p);
    assert_mat_close(&h, &hr, 1e-12);
    assert_symmetric(&h);
    let (_, _, (hx, hy)) = constants_hvp(p[0], p[1], (0.5, -2.0));
    assert_vec_close(&[hx, hy], &mat_vec(&h, &[0.5, -2.0]), 1e-12);
}

// ---- 3. casts inside loops, compound assignment on floats and array elements ----

#[differentiable(order = 2)]
fn compound(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut a = [0.0; 3];
    let mut v = vec![0.0; n];
    for i in 0..n {
        let fi = i as f64;
        let grow = 1.0 + 0.1 * y;
        s += x * fi;
        s *= grow;
        s -= 0.5 * fi * y;
        s /= 1.5;
        a[i % 3] += x * y + fi;
        a[(i + 1) % 3] *= 0.9;
        a[(i + 2) % 3] -= y * 0.25;
        let sx = (x - fi).sin();
        v[i] += sx;
        v[i] /= 2.0;
    }
    let mut t = s + a[0] * a[1] - a[2];
    for i in 0..n {
        t += v[i] * y;
    }
    t
}

fn compound_ref<T: Float>(p: &[T], n: usize) -> T {
    let c = |a: f64| T::from(a).unwrap();
    let (x, y) = (p[0], p[1]);
    let mut s = T::zero();
    let mut a = [T::zero(); 3];
    let mut v = vec![T::zero(); n];
    for i in 0..n {
        let fi = c(i as f64);
        s = s + x * fi;
        s = s * (c(1.0) + c(0.1) * y);
        s = s - c(0.5) * fi * y;
        s = s / c(1.5);
        a[i % 3] = a[i % 3] + x * y + fi;
        a[(i + 1) % 3] = a[(i + 1) % 3] * c(0.9);
        a[(i + 2) % 3] = a[(i + 2) % 3] - y * c(0.25);
        v[i] = v[i] + (x - fi).sin();
        v[i] = v[i] / c(2.0);
    }
    let mut t = s + a[0] * a[1] - a[2];
    for vi in v {
        t = t + vi * y;
    }
    t
}

#[test]
fn compound_assignments_and_casts() {
    for n in [0, 1, 2, 5] {
        let p = [0.7, -0.4];
        let (v, (gx, gy), h) = compound_hessian(p[0], p[1], n);
        assert_close(v, compound(p[0], p[1], n), 1e-15);
        let g = dual_gradient(|q| compound_ref(q, n), &p);
        assert_vec_close(&[gx, gy], &g, 1e-12);
        let (_, (fx, fy)) = compound_grad(p[0], p[1], n);
        assert_vec_close(&[fx, fy], &g, 1e-12);
        let hr = dual_hessian(|q| compound_ref(q, n), &p);
        assert_mat_close(&h, &hr, 1e-11);
        assert_symmetric(&h);
        let fd = fd_hessian(
            |q| {
                let (_, (a, b)) = compound_grad(q[0], q[1], n);
                vec![a, b]
            },
            &p,
        );
        assert_mat_close(&h, &fd, 1e-6);
    }
}

// ---- 4. f_derivatives with an inactive parameter, order 4 ----

#[differentiable(order = 4)]
fn legendre(x: f64, degree: usize) -> f64 {
    if degree == 0 {
        return 1.0;
    }
    let mut p0 = 1.0;
    let mut p1 = x;
    for k in 1..degree {
        let kf = k as f64;
        let p2 = ((2.0 * kf + 1.0) * x * p1 - kf * p0) / (kf + 1.0);
        p0 = p1;
        p1 = p2;
    }
    p1
}

#[test]
fn derivatives_with_inactive_degree() {
    let x = 0.3_f64;
    // P3 = (5x³ - 3x)/2, P4 = (35x⁴ - 30x² + 3)/8
    let p3 = [
        (5.0 * x.powi(3) - 3.0 * x) / 2.0,
        (15.0 * x * x - 3.0) / 2.0,
        15.0 * x,
        15.0,
        0.0,
    ];
    let p4 = [
        (35.0 * x.powi(4) - 30.0 * x * x + 3.0) / 8.0,
        (140.0 * x.powi(3) - 60.0 * x) / 8.0,
        (420.0 * x * x - 60.0) / 8.0,
        840.0 * x / 8.0,
        105.0,
    ];
    let d3 = legendre_derivatives(x, 3);
    let d4 = legendre_derivatives(x, 4);
    for k in 0..5 {
        assert_close(d3[k], p3[k], 1e-13);
        assert_close(d4[k], p4[k], 1e-13);
    }
    assert_eq!(legendre_derivatives(x, 0), [1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(legendre(x, 1), x);
    let (_, g, h) = legendre_hessian(x, 4);
    assert_close(g, p4[1], 1e-13);
    assert_close(h[0][0], p4[2], 1e-13);
}

// ---- 5. wrt(..) with order = 2 ----

#[differentiable(order = 2, wrt(x))]
fn wrt_scalar(x: f64, a: f64) -> f64 {
    a * x * x * x + (a * x).sin()
}

#[differentiable(order = 2, wrt(w))]
fn wrt_slice(w: &[f64], data: &[f64], scale: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        let r = w[i] * data[i] - scale;
        s += r * r * r;
    }
    s
}

#[test]
fn wrt_with_order_two() {
    let (x, a) = (0.6, 1.7);
    let d = wrt_scalar_derivatives(x, a);
    assert_close(d[0], wrt_scalar(x, a), 1e-15);
    assert_close(d[1], 3.0 * a * x * x + a * (a * x).cos(), 1e-14);
    assert_close(d[2], 6.0 * a * x - a * a * (a * x).sin(), 1e-14);
    let (_, g, h) = wrt_scalar_hessian(x, a);
    assert_eq!(h.len(), 1);
    assert_close(g, d[1], 1e-15);
    assert_close(h[0][0], d[2], 1e-15);

    let w = [0.5, -1.0, 2.0];
    let data = [1.5, 0.3, -0.7];
    let (v, g, h) = wrt_slice_hessian(&w, &data, 0.2);
    assert_eq!(v, wrt_slice(&w, &data, 0.2));
    assert_eq!(h.len(), 3);
    for i in 0..3 {
        let r = w[i] * data[i] - 0.2;
        assert_close(g[i], 3.0 * r * r * data[i], 1e-14);
        for j in 0..3 {
            let e = if i == j {
                6.0 * r * data[i] * data[i]
            } else {
                0.0
            };
            assert_close(h[i][j], e, 1e-14);
        }
    }
    let (_, _, hv) = wrt_slice_hvp(&w, &data, 0.2, vec![1.0, 2.0, 3.0]);
    assert_vec_close(&hv, &mat_vec(&h, &[1.0, 2.0, 3.0]), 1e-14);
}

// ---- 6. mixed parameter kinds: flattened order (l, w[0], w[1], ..) ----

#[differentiable(order = 2)]
fn flattened(n: usize, l: f64, w: &[f64], flag: bool, arr: [f64; 2], r: &[f64; 2]) -> f64 {
    let mut s = l * l * arr[1];
    for i in 0..w.len() {
        let k = i + n;
        s += (l * w[i]).sin() * k as f64;
    }
    if flag {
        s += arr[0] * r[1] * w[0];
    }
    s + r[0] * r[0] * l
}

fn flattened_ref<T: Float>(p: &[T], n: usize, m: usize, flag: bool) -> T {
    let l = p[0];
    let w = &p[1..1 + m];
    let arr = [p[1 + m], p[2 + m]];
    let r = [p[3 + m], p[4 + m]];
    let mut s = l * l * arr[1];
    for i in 0..w.len() {
        s = s + (l * w[i]).sin() * T::from(i + n).unwrap();
    }
    if flag {
        s = s + arr[0] * r[1] * w[0];
    }
    s + r[0] * r[0] * l
}

#[test]
fn flattened_hessian_order() {
    let w = [0.4, -0.9, 1.3];
    let (arr, r) = ([0.8, -1.1], [0.25, 2.0]);
    for flag in [true, false] {
        let (v, (gl, gw, garr, gr), h) = flattened_hessian(2, 0.6, &w, flag, arr, &r);
        assert_eq!(v, flattened(2, 0.6, &w, flag, arr, &r));
        let p: Vec<f64> = [0.6]
            .iter()
            .chain(&w)
            .chain(&arr)
            .chain(&r)
            .copied()
            .collect();
        let g: Vec<f64> = [gl]
            .iter()
            .chain(&gw)
            .chain(&garr)
            .chain(&gr)
            .copied()
            .collect();
        assert_vec_close(
            &g,
            &dual_gradient(|q| flattened_ref(q, 2, 3, flag), &p),
            1e-13,
        );
        let hr = dual_hessian(|q| flattened_ref(q, 2, 3, flag), &p);
        assert_eq!(h.len(), 8);
        assert_mat_close(&h, &hr, 1e-13);
        assert_symmetric(&h);
        let dir = [1.0, 0.5, -0.5, 2.0, 0.1, 0.2, -0.3, 0.7];
        let (_, _, (hl, hw, harr, hr2)) = flattened_hvp(
            2,
            0.6,
            &w,
            flag,
            arr,
            &r,
            (
                dir[0],
                dir[1..4].to_vec(),
                [dir[4], dir[5]],
                [dir[6], dir[7]],
            ),
        );
        let hv: Vec<f64> = [hl]
            .iter()
            .chain(&hw)
            .chain(&harr)
            .chain(&hr2)
            .copied()
            .collect();
        assert_vec_close(&hv, &mat_vec(&h, &dir), 1e-13);
    }
}

// ---- 7. f32 ----

#[differentiable(order = 3)]
fn single(x: f32, n: i32) -> f32 {
    let mut s = 0.0;
    for k in 0..n {
        s += (x * k as f32).sin() / (k as f32 + 1.0);
    }
    s + std::f32::consts::PI * x.powi(3) + f32::EPSILON
}

#[test]
fn f32_derivatives() {
    let x = 0.4_f32;
    let d = single_derivatives(x, 4);
    assert_eq!(d[0], single(x, 4));
    let xd = x as f64;
    let pi = std::f32::consts::PI as f64;
    let mut e = [0.0, 0.0, 0.0, 0.0];
    for k in 0..4 {
        let kf = k as f64;
        let c = 1.0 / (kf + 1.0);
        e[0] += (xd * kf).sin() * c;
        e[1] += kf * (xd * kf).cos() * c;
        e[2] -= kf * kf * (xd * kf).sin() * c;
        e[3] -= kf * kf * kf * (xd * kf).cos() * c;
    }
    e[0] += pi * xd.powi(3);
    e[1] += 3.0 * pi * xd * xd;
    e[2] += 6.0 * pi * xd;
    e[3] += 6.0 * pi;
    for k in 0..4 {
        assert_close(d[k] as f64, e[k], 1e-5);
    }
    let (_, g, h) = single_hessian(x, 4);
    assert_eq!(g, d[1]);
    assert_eq!(h[0][0], d[2]);
}

// ---- 8. calls: generic callees from f64 (shadow) and generic order-2 callers ----

#[differentiable]
fn sq<T: Float>(x: T) -> T {
    x * x
}

#[differentiable(wrt(x))]
fn scaled_sin<T: Float>(x: T, a: T) -> T {
    a * x.sin()
}

#[differentiable]
fn dot<T: Float>(a: &[T], b: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..a.len() {
        s = s + a[i] * b[i];
    }
    s
}

#[differentiable]
fn rot<T: Float>(v: &[T; 2], t: T) -> [T; 2] {
    [
        v[0] * t.cos() - v[1] * t.sin(),
        v[0] * t.sin() + v[1] * t.cos(),
    ]
}

#[differentiable]
fn deep3<T: Float>(x: T, k: usize) -> T {
    let mut s = T::zero();
    for i in 0..k {
        s = s + sq(x * T::from(i).unwrap()).sin();
    }
    s
}

#[differentiable]
fn deep2<T: Float>(x: T, y: T, k: usize) -> T {
    let mut s = T::zero();
    for i in 0..k {
        if i % 2 == 0 {
            s = s + deep3(x * y, i);
        } else {
            s = s - scaled_sin(y, T::from(1.5).unwrap());
        }
    }
    s
}

#[differentiable(order = 2)]
fn calls_f64(x: f64, y: f64, n: usize) -> f64 {
    let v = vec![x, y, x * y];
    let w = vec![1.0, 2.0, y];
    let xy = [x, y];
    let r: [f64; 2] = rot(&xy, 0.3);
    let mut s = dot(&v, &w) + sq(y) + scaled_sin(x, 2.0) + r[0] * r[1];
    for i in 0..n {
        s += deep2(x, y, i) * 0.1;
    }
    s
}

#[differentiable(order = 2)]
fn calls_generic<T: Float>(x: T, y: T, n: usize) -> T {
    let v = vec![x, y, x * y];
    let w = vec![T::one(), T::from(2.0).unwrap(), y];
    let xy = [x, y];
    let r: [T; 2] = rot(&xy, T::from(0.3).unwrap());
    let mut s = dot(&v, &w) + sq(y) + scaled_sin(x, T::from(2.0).unwrap()) + r[0] * r[1];
    for i in 0..n {
        s = s + deep2(x, y, i) * T::from(0.1).unwrap();
    }
    s
}

fn calls_ref<T: Float>(p: &[T], n: usize) -> T {
    let c = |a: f64| T::from(a).unwrap();
    let (x, y) = (p[0], p[1]);
    let deep3 = |x: T, k: usize| {
        let mut s = T::zero();
        for i in 0..k {
            let z = x * T::from(i).unwrap();
            s = s + (z * z).sin();
        }
        s
    };
    let deep2 = |x: T, y: T, k: usize| {
        let mut s = T::zero();
        for i in 0..k {
            if i % 2 == 0 {
                s = s + deep3(x * y, i);
            } else {
                s = s - c(1.5) * y.sin();
            }
        }
        s
    };
    let t = c(0.3);
    let r = [x * t.cos() - y * t.sin(), x * t.sin() + y * t.cos()];
    let mut s = x + c(2.0) * y + x * y * y + y * y + c(2.0) * x.sin() + r[0] * r[1];
    for i in 0..n {
        s = s + deep2(x, y, i) * c(0.1);
    }
    s
}

#[test]
fn calls_at_second_order() {
    for n in [0, 1, 3, 5] {
        let p = [0.5, -0.7];
        let hr = dual_hessian(|q| calls_ref(q, n), &p);
        let gr = dual_gradient(|q| calls_ref(q, n), &p);
        let (v, (gx, gy), h) = calls_f64_hessian(p[0], p[1], n);
        assert_close(v, calls_f64(p[0], p[1], n), 1e-14);
        assert_vec_close(&[gx, gy], &gr, 1e-12);
        assert_mat_close(&h, &hr, 1e-11);
        assert_symmetric(&h);
        let (v2, (gx2, gy2), h2) = calls_generic_hessian(p[0], p[1], n);
        assert_close(v2, calls_generic(p[0], p[1], n), 1e-14);
        assert_close(v2, v, 1e-14);
        assert_vec_close(&[gx2, gy2], &gr, 1e-12);
        assert_mat_close(&h2, &hr, 1e-11);
        let (_, (g1, g2)) = calls_f64_grad(p[0], p[1], n);
        let fd = fd_hessian(
            |q| {
                let (_, (a, b)) = calls_f64_grad(q[0], q[1], n);
                vec![a, b]
            },
            &p,
        );
        assert_vec_close(&[g1, g2], &gr, 1e-12);
        assert_mat_close(&h, &fd, 1e-6);
        let (_, _, (hx, hy)) = calls_generic_hvp(p[0], p[1], n, (1.0, -3.0));
        assert_vec_close(&[hx, hy], &mat_vec(&h, &[1.0, -3.0]), 1e-12);
        let c = check_gradient(|q| calls_generic(q[0], q[1], n), &p, &[gx2, gy2]);
        assert!(c.is_ok(1e-6), "{c}");
    }
    // the callees themselves, first order
    assert_eq!(sq(3.0), 9.0);
    assert_eq!(scaled_sin_grad(0.0, 2.0), (0.0, 2.0));
    assert_eq!(dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
    assert_eq!(rot(&[1.0, 0.0], 0.0), [1.0, 0.0]);
    assert_eq!(deep3(0.5, 0), 0.0);
    assert_eq!(deep2(0.5, 0.5, 0), 0.0);
}

// ---- 9. custom gradients (several inputs, slices, a closure capturing a Vec) at order 2 and 3 ----

#[custom_gradient]
fn wsum<T: Float>(w: &[T], a: T) -> (T, impl Fn(T) -> (Vec<T>, T)) {
    let ws: Vec<T> = w.to_vec();
    let mut s = T::zero();
    for &v in w {
        s = s + (a * v).sin();
    }
    (s, move |dy: T| {
        let mut gw = Vec::new();
        let mut ga = T::zero();
        for &v in &ws {
            gw.push(dy * a * (a * v).cos());
            ga = ga + dy * v * (a * v).cos();
        }
        (gw, ga)
    })
}

#[custom_gradient]
fn mulc<T: Float>(x: T, y: T) -> (T, impl Fn(T) -> (T, T)) {
    (x * y, move |dy: T| (dy * y, dy * x))
}

#[differentiable(order = 3)]
fn through_customs<T: Float>(x: T, y: T) -> T {
    let w = vec![x, y, x * y];
    wsum(&w, y) + mulc(x, mulc(y, y))
}

#[differentiable(order = 2)]
fn through_customs_f64(x: f64, y: f64) -> f64 {
    let w = vec![x, y, x * y];
    let arr = vec![y, x];
    wsum(&w, y) + mulc(x, mulc(y, y)) + wsum(&arr, 0.5)
}

#[differentiable(order = 4)]
fn custom_one_input(x: f64, k: usize) -> f64 {
    let mut s = 0.0;
    // Made before the loop: a `Vec` made inside a loop body is wip/BUGS-docs.md 7.
    let mut w = vec![0.0; 2];
    for i in 0..k {
        w[0] = x;
        w[1] = 2.0 * x;
        s += wsum(&w, x) * i as f64;
    }
    s
}

fn customs_ref<T: Float>(p: &[T], extra: bool) -> T {
    let (x, y) = (p[0], p[1]);
    let mut s = (y * x).sin() + (y * y).sin() + (y * x * y).sin() + x * y * y;
    if extra {
        let h = T::from(0.5).unwrap();
        s = s + (h * y).sin() + (h * x).sin();
    }
    s
}

fn custom_one_ref<T: Float>(z: T) -> T {
    let three = T::from(3.0).unwrap();
    (z * z).sin() * three + (z * z * T::from(2.0).unwrap()).sin() * three
}

#[test]
fn custom_gradients_at_higher_order() {
    let p = [0.3, -0.6];
    for (extra, hessian) in [
        (false, through_customs_hessian(p[0], p[1])),
        (true, through_customs_f64_hessian(p[0], p[1])),
    ] {
        let (v, (gx, gy), h) = hessian;
        assert_close(v, customs_ref(&p, extra), 1e-14);
        assert_vec_close(
            &[gx, gy],
            &dual_gradient(|q| customs_ref(q, extra), &p),
            1e-13,
        );
        assert_mat_close(&h, &dual_hessian(|q| customs_ref(q, extra), &p), 1e-12);
        assert_symmetric(&h);
    }
    assert_eq!(
        through_customs(p[0], p[1]),
        through_customs_hessian(p[0], p[1]).0
    );
    assert_eq!(
        through_customs_f64(p[0], p[1]),
        through_customs_f64_hessian(p[0], p[1]).0
    );
    let (_, _, (hx, hy)) = through_customs_hvp(p[0], p[1], (0.25, 1.0));
    let h = through_customs_hessian(p[0], p[1]).2;
    assert_vec_close(&[hx, hy], &mat_vec(&h, &[0.25, 1.0]), 1e-13);
    // order 4 through the closure: s = k(k-1)/2 (sin x² + sin 2x²)
    let x = 0.7;
    let d = custom_one_input_derivatives(x, 3);
    let r = dual_derivatives4(custom_one_ref, x);
    for k in 0..5 {
        assert_close(d[k], r[k], 1e-12);
    }
    assert_close(custom_one_input(x, 3), r[0], 1e-14);
    assert_eq!(mulc(2.0, 3.0), 6.0);
    assert_eq!(mulc_grad(2.0, 3.0), (6.0, (3.0, 2.0)));
    let (_, (gw, ga)) = wsum_grad(&[0.5, 1.0], 2.0);
    assert_vec_close(&gw, &[2.0 * 1.0_f64.cos(), 2.0 * 2.0_f64.cos()], 1e-15);
    assert_close(ga, 0.5 * 1.0_f64.cos() + 2.0_f64.cos(), 1e-15);
}

// ---- 10. registered gradients: of a slice function (first order), of a generic one (second order) ----

mod outside {
    pub fn dot_plain(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    pub fn cube<T: autodiff::Float>(x: T) -> T {
        x * x * x
    }
}

use outside::{cube, dot_plain};

#[gradient_of(dot_plain)]
fn dot_plain_vjp(a: &[f64], b: &[f64], dy: f64) -> (Vec<f64>, Vec<f64>) {
    (
        b.iter().map(|v| v * dy).collect(),
        a.iter().map(|v| v * dy).collect(),
    )
}

#[gradient_of(cube)]
fn cube_vjp<T: Float>(x: T, dy: T) -> T {
    dy * T::from(3.0).unwrap() * x * x
}

#[differentiable]
fn uses_dot_plain(x: &[f64], y: f64) -> f64 {
    let w = vec![y, y * y, 1.0];
    let arr = [y, 2.0, x[0]];
    dot_plain(x, &w) * dot_plain(&w, &w) + dot_plain(&arr, x)
}

#[differentiable(order = 2)]
fn uses_cube<T: Float>(x: T, y: T) -> T {
    cube(x * y) + cube(x)
}

#[test]
fn registered_gradients() {
    let x = [0.5, 1.0, -2.0];
    let y = 0.7;
    let (v, (gx, gy)) = uses_dot_plain_grad(&x, y);
    assert_eq!(v, uses_dot_plain(&x, y));
    let mut g = gx.clone();
    g.push(gy);
    let p = [x[0], x[1], x[2], y];
    let c = check_gradient(|q| uses_dot_plain(&q[..3], q[3]), &p, &g);
    assert!(c.is_ok(1e-6), "{c}");
    assert_eq!(dot_plain_vjp(&[1.0], &[2.0], 1.0), (vec![2.0], vec![1.0]));

    let (v, (gx, gy), h) = uses_cube_hessian(0.5, 2.0);
    assert_eq!(v, uses_cube(0.5, 2.0));
    assert_eq!((v, gx, gy), (1.125, 6.75, 1.5));
    assert_mat_close(&h, &[vec![27.0, 9.0], vec![9.0, 1.5]], 1e-15);
    assert_eq!(cube_vjp(2.0, 1.0), 12.0);
}

// ---- 11. high orders, odd generics and parameter names, control flow in the shadow ----

#[differentiable(order = 8)]
fn order_eight(x: f64, k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..k {
        s += (2.0 * x).exp() / (i as f64 + 1.0);
    }
    s + x.powi(9)
}

#[differentiable(order = 6)]
fn order_six<T: Float>(x: T) -> T {
    x.sin() * x.cos() + T::one() / (x + T::from(2.0).unwrap())
}

#[test]
fn high_orders() {
    let x = 0.5_f64;
    let d = order_eight_derivatives(x, 2);
    assert_eq!(d[0], order_eight(x, 2));
    let mut fall = 1.0; // 9!/(9-k)!
    for (k, dk) in d.iter().enumerate() {
        let e = 1.5 * 2.0_f64.powi(k as i32) * 1.0_f64.exp() + fall * x.powi(9 - k as i32);
        assert_close(*dk, e, 1e-12);
        fall *= (9 - k) as f64;
    }
    let d = order_six_derivatives(x);
    assert_eq!(d[0], order_six(x));
    let mut fact = 1.0;
    for (k, dk) in d.iter().enumerate() {
        let phase = std::f64::consts::FRAC_PI_2 * k as f64;
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        let e = 2.0_f64.powi(k as i32 - 1) * (2.0 * x + phase).sin()
            + sign * fact / (x + 2.0).powi(k as i32 + 1);
        assert_close(*dk, e, 1e-12);
        fact *= (k + 1) as f64;
    }
}

#[differentiable(order = 2)]
fn where_clause<T>(x: T, y: T) -> T
where
    T: Float,
{
    x * y * y
}

#[differentiable(order = 3)]
fn extra_generic<F: Float, U: Copy>(x: F, _u: U) -> F {
    x * x * x
}

#[differentiable(order = 2)]
fn named_v(v: f64, x: f64) -> f64 {
    v * x * x
}

#[differentiable(order = 2)]
fn vec_params(a: &Vec<f64>, b: Vec<f64>) -> f64 {
    a[0] * b[1] * b[1] + b[0]
}

#[differentiable(order = 2)]
fn vec_params_generic<T: Float>(a: &Vec<T>, b: Vec<T>) -> T {
    a[0] * b[1] * b[1] + b[0]
}

#[test]
#[allow(clippy::ptr_arg)]
fn generics_and_names() {
    let h = [vec![0.0, 6.0], vec![6.0, 4.0]];
    let (v, g, hh) = where_clause_hessian(2.0, 3.0);
    assert_eq!((v, g), (18.0, (9.0, 12.0)));
    assert_mat_close(&hh, &h, 0.0);
    assert_eq!(where_clause(2.0, 3.0), 18.0);
    assert_eq!(extra_generic_derivatives(2.0, 1u8), [8.0, 12.0, 12.0, 6.0]);
    assert_eq!(extra_generic(2.0_f32, ()), 8.0);
    let (v, g, hv) = named_v_hvp(2.0, 3.0, (1.0, -1.0));
    assert_eq!((v, g, hv), (18.0, (9.0, 12.0), (-6.0, 2.0)));
    assert_eq!(named_v(2.0, 3.0), 18.0);
    let (v, (ga, gb), hh) = vec_params_hessian(&vec![2.0], vec![1.0, 3.0]);
    assert_eq!((v, ga, gb), (19.0, vec![9.0], vec![1.0, 12.0]));
    let (v2, _, hh2) = vec_params_generic_hessian(&vec![2.0], vec![1.0, 3.0]);
    assert_eq!(v2, vec_params(&vec![2.0], vec![1.0, 3.0]));
    assert_eq!(v2, vec_params_generic(&vec![2.0], vec![1.0, 3.0]));
    assert_eq!(hh, hh2);
    assert_mat_close(
        &hh,
        &[
            vec![0.0, 0.0, 6.0],
            vec![0.0, 0.0, 0.0],
            vec![6.0, 0.0, 4.0],
        ],
        0.0,
    );
}

// The shadow turns `i += 1` on integers into `i = i + 1`: wip/BUGS-higher.md 7.
mod flow {
    #![allow(clippy::assign_op_pattern)]
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn control_flow(x: f64, n: usize) -> f64 {
        let c = match n {
            0 => 1.0,
            1 | 2 => x,
            3..=5 => 2.0 * x,
            _ => -0.5,
        };
        let s = if x > 0.0 { 1.0 } else { -1.0 };
        let (a, b) = (x * 2.0, 3.0);
        let mut t = 0.0;
        let mut i = 0;
        while i < n {
            t += x.abs() * 0.5;
            i += 1;
            if i > 3 {
                break;
            }
        }
        let mut j = 0;
        loop {
            j += 1;
            if j >= 2 {
                break;
            }
            t *= 1.5;
        }
        c * s * a * b * x + t + x.signum() + x.floor() + f64::NAN.min(x)
    }
}

use flow::{control_flow, control_flow_derivatives, control_flow_grad};

fn control_flow_ref<T: Float>(x: T, n: usize) -> T {
    let k = |v: f64| T::from(v).unwrap();
    let c = match n {
        0 => k(1.0),
        1 | 2 => x,
        3..=5 => x * k(2.0),
        _ => k(-0.5),
    };
    let s = if x > T::zero() { k(1.0) } else { k(-1.0) };
    let t = x.abs() * k(0.5 * n.min(4) as f64) * k(1.5);
    c * s * x * k(6.0) * x + t + x.signum() + x.floor() + x
}

#[test]
fn control_flow_in_shadow() {
    for x in [0.8, -0.8, 1.3] {
        for n in 0..7 {
            let d = control_flow_derivatives(x, n);
            let r = control_flow_ref(d2(x, 1.0, 1.0), n);
            assert_close(d[0], control_flow(x, n), 1e-15);
            assert_close(d[0], r.re.re, 1e-14);
            assert_close(d[1], r.re.eps, 1e-14);
            assert_close(d[2], r.eps.eps, 1e-14);
            assert_eq!(control_flow_grad(x, n).1, d[1]);
        }
    }
}

/// A `match` whose patterns name constants by path (`i64::MIN..=-1`, `LAST`): the shadow keeps the
/// patterns as written (it once rewrote `i64::MIN` into a call, which no pattern may hold, and the
/// function failed to compile at `order = 2`).
#[differentiable(order = 2)]
fn path_range_patterns(x: f64) -> f64 {
    const LAST: i64 = 2;
    let seg = x.floor() as i64;
    let c = match seg {
        i64::MIN..=-1 => 1.5,
        0 => 2.0,
        1..=LAST => -1.0,
        _ => 0.5,
    };
    c * x * x
}

#[test]
fn path_range_patterns_in_shadow() {
    for (x, c) in [
        (-2.5, 1.5),
        (0.5, 2.0),
        (1.5, -1.0),
        (2.5, -1.0),
        (3.5, 0.5),
    ] {
        let d = path_range_patterns_derivatives(x);
        assert_eq!(d, [c * x * x, 2.0 * c * x, 2.0 * c], "at {x}");
        assert_eq!(d[0], path_range_patterns(x), "at {x}");
    }
}

// ---- 12. arrays into callees, `wrt` callees with active arguments, array and tuple results ----

#[differentiable]
fn sumsq<T: Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for &v in x {
        s = s + v * v;
    }
    s
}

#[differentiable(order = 2)]
fn local_array_to_slice(x: f64, y: f64) -> f64 {
    let v = [y, y * y, x];
    sumsq(&v)
}

#[differentiable(wrt(x))]
fn scale_by<T: Float>(x: T, a: T) -> T {
    a * x
}

#[differentiable(order = 2)]
fn active_into_constant(x: f64, y: f64) -> f64 {
    scale_by(x, y) * x
}

#[differentiable]
fn scale_vec<T: Float>(v: &[T], a: T) -> Vec<T> {
    let mut o = vec![T::zero(); v.len()];
    for i in 0..v.len() {
        o[i] = v[i] * a;
    }
    o
}

#[custom_gradient]
fn polar<T: Float>(r: T, t: T) -> ((T, T), impl Fn((T, T)) -> (T, T)) {
    ((r * t.cos(), r * t.sin()), move |(da, db): (T, T)| {
        (
            da * t.cos() + db * t.sin(),
            -da * r * t.sin() + db * r * t.cos(),
        )
    })
}

#[custom_gradient]
fn vscale<T: Float>(x: &[T], a: T) -> (Vec<T>, impl Fn(Vec<T>) -> (Vec<T>, T)) {
    let xs = x.to_vec();
    let out: Vec<T> = x.iter().map(|&v| a * v).collect();
    (out, move |dy: Vec<T>| {
        (
            dy.iter().map(|&d| d * a).collect(),
            dy.iter().zip(&xs).fold(T::zero(), |s, (&d, &v)| s + d * v),
        )
    })
}

#[differentiable(order = 2)]
fn array_results(x: f64, y: f64) -> f64 {
    let xy = [x, y];
    let r = rot(&xy, y);
    let v = vec![x, y, 1.0];
    let s = scale_vec(&v, x);
    r[0] * r[1] + s[0] * s[2]
}

fn array_results_ref<T: Float>(p: &[T]) -> T {
    let (x, y) = (p[0], p[1]);
    let r = [x * y.cos() - y * y.sin(), x * y.sin() + y * y.cos()];
    r[0] * r[1] + x * x * x
}

#[differentiable(order = 2)]
fn tuple_custom(x: f64, y: f64) -> f64 {
    let (a, b) = polar(x, y);
    a * b
}

#[differentiable(order = 2)]
fn vec_custom(x: f64, y: f64) -> f64 {
    let v = vec![x, y];
    let o: Vec<f64> = vscale(&v, x);
    o[0] * o[1]
}

#[test]
fn arrays_and_results_through_calls() {
    let (v, g, h) = local_array_to_slice_hessian(0.5, 2.0);
    assert_eq!((v, g), (20.25, (1.0, 36.0)));
    assert_mat_close(&h, &[vec![2.0, 0.0], vec![0.0, 50.0]], 1e-15);
    assert_eq!(local_array_to_slice(0.5, 2.0), 20.25);

    // The callee's `wrt` restricts its own `_grad`; a caller differentiates through all its floats.
    let (v, g, h) = active_into_constant_hessian(2.0, 3.0);
    assert_eq!((v, g), (12.0, (12.0, 4.0)));
    assert_mat_close(&h, &[vec![6.0, 4.0], vec![4.0, 0.0]], 1e-15);
    assert_eq!(active_into_constant(2.0, 3.0), 12.0);
    assert_eq!(scale_by_grad(2.0, 3.0), (6.0, 3.0));

    let p = [0.5, 2.0];
    let (v, (gx, gy), h) = array_results_hessian(p[0], p[1]);
    assert_close(v, array_results(p[0], p[1]), 1e-15);
    assert_close(v, array_results_ref(&p), 1e-14);
    assert_vec_close(&[gx, gy], &dual_gradient(array_results_ref, &p), 1e-13);
    assert_mat_close(&h, &dual_hessian(array_results_ref, &p), 1e-13);
    assert_eq!(scale_vec(&[1.0, 2.0], 3.0), vec![3.0, 6.0]);

    let (v, (gx, gy), h) = tuple_custom_hessian(p[0], p[1]);
    // x² sin(2y) / 2
    let s4 = 4.0_f64.sin();
    let c4 = 4.0_f64.cos();
    assert_close(v, 0.125 * s4, 1e-15);
    assert_close(v, tuple_custom(p[0], p[1]), 1e-15);
    assert_vec_close(&[gx, gy], &[0.5 * s4, 0.25 * c4], 1e-14);
    assert_mat_close(&h, &[vec![s4, c4], vec![c4, -0.5 * s4]], 1e-14);
    assert_eq!(polar(1.0, 0.0), (1.0, 0.0));

    // x³ y
    let (v, g, h) = vec_custom_hessian(0.5, 2.0);
    assert_eq!((v, g), (0.25, (1.5, 0.125)));
    assert_mat_close(&h, &[vec![6.0, 0.75], vec![0.75, 0.0]], 1e-15);
    assert_eq!(vec_custom(0.5, 2.0), 0.25);
    assert_eq!(vscale(&[1.0], 2.0), vec![2.0]);
}

// ---- 13. path forms, turbofish, `wrt` with inactive slices, empty slices ----

#[differentiable(order = 2)]
fn path_forms(x: f64) -> f64 {
    f64::sin(x) + f64::powi(x, 2) + f64::mul_add(x, 2.0, 1.0) + sq::<f64>(x)
}

#[differentiable(order = 3, wrt(x))]
fn wrt_with_slice(x: f64, w: &[f64]) -> f64 {
    x * x * w[0] + x * x * x * w[1]
}

#[differentiable(order = 3, wrt(x))]
fn wrt_generic<T: Float>(x: T, a: T, w: &[T]) -> T {
    x * x * w[0] + x * x * x * a
}

#[differentiable(order = 2)]
fn product(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for &v in x {
        s *= v;
    }
    s
}

#[test]
fn path_forms_and_wrt() {
    let x = 0.5_f64;
    let d = path_forms_derivatives(x);
    assert_close(d[0], path_forms(x), 1e-15);
    assert_close(d[1], x.cos() + 4.0 * x + 2.0, 1e-15);
    assert_close(d[2], -x.sin() + 4.0, 1e-15);
    assert_eq!(
        wrt_with_slice_derivatives(2.0, &[1.0, 2.0]),
        [20.0, 28.0, 26.0, 12.0]
    );
    assert_eq!(wrt_with_slice(2.0, &[1.0, 2.0]), 20.0);
    assert_eq!(
        wrt_generic_derivatives(2.0, 2.0, &[1.0]),
        [20.0, 28.0, 26.0, 12.0]
    );
    assert_eq!(wrt_generic(2.0, 2.0, &[1.0]), 20.0);
    let (_, g, h) = wrt_generic_hessian(2.0_f32, 2.0, &[1.0]);
    assert_eq!((g, h), (28.0, vec![vec![26.0]]));
    assert_eq!(product_hessian(&[]), (1.0, vec![], vec![]));
    let (v, g, h) = product_hessian(&[2.0, 3.0, 4.0]);
    assert_eq!((v, g), (24.0, vec![12.0, 8.0, 6.0]));
    assert_mat_close(
        &h,
        &[
            vec![0.0, 4.0, 3.0],
            vec![4.0, 0.0, 2.0],
            vec![3.0, 2.0, 0.0],
        ],
        0.0,
    );
    assert_eq!(product(&[2.0]), 2.0);
    let (_, _, hv) = product_hvp(&[2.0, 3.0, 4.0], vec![1.0, 1.0, 1.0]);
    assert_eq!(hv, vec![7.0, 6.0, 5.0]);
}

// ---- regressions of the generic shadow (casts, constants, compound assignments, stop_gradient) ----

#[differentiable(order = 2)]
fn mul_assign_sum(x: f64, y: f64) -> f64 {
    let mut s = x;
    s *= 1.0 + y;
    s
}

#[differentiable(order = 2)]
fn sub_assign_difference(x: f64, y: f64) -> f64 {
    let mut s = x;
    s -= y - 1.0;
    s /= x * y;
    s
}

#[differentiable(order = 2)]
fn mul_assign_in_loop(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        let k = i + 1;
        s *= (k as f64).sqrt() + x;
    }
    s
}

#[test]
fn compound_assignment_keeps_its_right_side_whole() {
    assert_eq!(
        mul_assign_sum_hessian(2.0, 3.0),
        (8.0, (4.0, 2.0), vec![vec![0.0, 1.0], vec![1.0, 0.0]])
    );
    // g = (x - y + 1) / (x y) = 1/y - 1/x + 1/(x y)
    let (x, y) = (2.0_f64, 3.0_f64);
    let (v, (gx, gy), h) = sub_assign_difference_hessian(x, y);
    assert_close(v, sub_assign_difference(x, y), 1e-15);
    assert_close(gx, 1.0 / (x * x) - 1.0 / (x * x * y), 1e-15);
    assert_close(gy, -1.0 / (y * y) - 1.0 / (x * y * y), 1e-15);
    let reference = dual_hessian(
        |p| (p[0] - p[1] + Dual::constant(Dual::constant(1.0))) / (p[0] * p[1]),
        &[x, y],
    );
    assert_mat_close(&h, &reference, 1e-14);
    // n = 1: x (1 + x); n = 2: x (1 + x)(sqrt 2 + x)
    assert_eq!(mul_assign_in_loop_derivatives(2.0, 1), [6.0, 5.0, 2.0]);
    let r2 = 2.0_f64.sqrt();
    let d = mul_assign_in_loop_derivatives(2.0, 2);
    // x^3 + (1 + r2) x^2 + r2 x at x = 2
    let reference = [
        8.0 + 4.0 * (1.0 + r2) + 2.0 * r2,
        12.0 + 4.0 * (1.0 + r2) + r2,
        12.0 + 2.0 * (1.0 + r2),
    ];
    assert_vec_close(&d, &reference, 1e-13);
}

#[differentiable(order = 2)]
#[allow(clippy::unnecessary_cast)] // the cast under test
fn cast_to_own_float(x: f64) -> f64 {
    (x as f64) * x
}

#[differentiable(order = 2)]
fn cast_to_integer(x: f64) -> f64 {
    let k = (x * 2.0).floor() as usize;
    x * x * k as f64
}

#[differentiable(order = 2)]
fn float_from_integer(x: f64, n: u32) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += x * (i + n) as f64;
    }
    f64::from(n) * x * x + s
}

#[test]
fn casts_in_the_shadow() {
    assert_eq!(cast_to_own_float_derivatives(3.0), [9.0, 6.0, 2.0]);
    assert_eq!(cast_to_integer_derivatives(1.0), [2.0, 4.0, 4.0]);
    // (x * 2).floor() = 3 on [1.5, 2): 3 x^2
    assert_eq!(
        cast_to_integer_derivatives(1.75),
        [3.0 * 1.75 * 1.75, 6.0 * 1.75, 6.0]
    );
    // n x^2 + x (3n + 3)
    assert_eq!(float_from_integer_derivatives(1.0, 3), [15.0, 18.0, 6.0]);
    assert_eq!(float_from_integer_grad(1.0, 3), (15.0, 18.0));
}

#[differentiable(order = 2)]
fn body_constant(x: f64) -> f64 {
    const K: f64 = 3.0;
    K * x * x
}

#[differentiable(order = 2)]
fn imported_constant(x: f64) -> f64 {
    use std::f64::consts::PI;
    PI * x * x
}

mod outer_import {
    use autodiff::differentiable;
    use std::f64::consts::{self, PI};

    #[differentiable(order = 2)]
    pub fn circle(r: f64) -> f64 {
        PI * r * r + consts::E * r
    }
}

#[test]
fn named_constants_in_the_shadow() {
    use std::f64::consts::{E, PI};
    assert_eq!(body_constant_derivatives(1.0), [3.0, 6.0, 6.0]);
    assert_eq!(imported_constant_derivatives(1.0), [PI, 2.0 * PI, 2.0 * PI]);
    let d = outer_import::circle_derivatives(2.0);
    assert_vec_close(&d, &[4.0 * PI + 2.0 * E, 4.0 * PI + E, 2.0 * PI], 1e-14);
}

#[differentiable(order = 2)]
fn stopped_square(x: f64) -> f64 {
    autodiff::stop_gradient(x) * x
}

#[differentiable(order = 3)]
fn stopped_product<T: Float>(x: T, y: T) -> T {
    autodiff::stop_gradient(x * y) * x * x + y
}

#[test]
fn stop_gradient_stops_every_order() {
    // As `jax.grad(jax.grad(lambda x: stop_gradient(x) * x))(3.) == 0`.
    assert_eq!(stopped_square_derivatives(3.0), [9.0, 3.0, 0.0]);
    assert_eq!(stopped_square_hessian(3.0).2, vec![vec![0.0]]);
    // With c = x y held: c x^2 + y, gradient (2 c x, 1), Hessian [[2 c, 0], [0, 0]].
    assert_eq!(
        stopped_product_hessian(2.0, 3.0),
        (27.0, (24.0, 1.0), vec![vec![12.0, 0.0], vec![0.0, 0.0]])
    );
    let (v, g) = stopped_product_grad(Dual::new(2.0, 1.0), Dual::new(3.0, 0.0));
    assert_eq!((v, g.0), (Dual::new(27.0, 24.0), Dual::new(24.0, 12.0)));
}

/// A primal function and its `[f, f', f'']` at a point.
type Case<'a> = (&'a dyn Fn(f64) -> f64, [f64; 3]);

#[test]
fn shadow_regressions_agree_with_their_primal_and_finite_differences() {
    // The value the higher-order items compute is the primal's, and their first derivative matches central
    // differences of the primal, at many points.
    let h = 1e-6;
    for i in 0..40 {
        let x = 0.3 + 0.07 * f64::from(i);
        let y = 1.1 + 0.05 * f64::from(i);
        let fd = |f: &dyn Fn(f64) -> f64| (f(x + h) - f(x - h)) / (2.0 * h);
        let cases: [Case; 8] = [
            (&|x| mul_assign_sum(x, y), {
                let (v, g, h) = mul_assign_sum_hessian(x, y);
                [v, g.0, h[0][0]]
            }),
            (
                &|x| mul_assign_in_loop(x, 3),
                mul_assign_in_loop_derivatives(x, 3),
            ),
            (&cast_to_own_float, cast_to_own_float_derivatives(x)),
            (
                &|x| float_from_integer(x, 4),
                float_from_integer_derivatives(x, 4),
            ),
            (&body_constant, body_constant_derivatives(x)),
            (&imported_constant, imported_constant_derivatives(x)),
            (&outer_import::circle, outer_import::circle_derivatives(x)),
            (&stopped_square, stopped_square_derivatives(x)),
        ];
        for (k, (f, d)) in cases.iter().enumerate() {
            assert_close(d[0], f(x), 1e-12);
            if k != 7 {
                // (`stopped_square`'s derivative is not the primal's, by design.)
                assert!(
                    close(d[1], fd(*f), 1e-6),
                    "case {k} at {x}: {} vs {}",
                    d[1],
                    fd(*f)
                );
            }
        }
        // Away from the jumps of the floor, the derivative of `cast_to_integer` is that of k x^2.
        let k = (x * 2.0).floor();
        let d = cast_to_integer_derivatives(x);
        assert_eq!(d, [cast_to_integer(x), 2.0 * k * x, 2.0 * k]);
        assert_eq!(stopped_product_hessian(x, y).0, stopped_product(x, y));
    }
}

mod module_constants {
    use autodiff::differentiable;

    pub const G: f64 = 9.81;
    pub const STEPS: usize = 4;
    pub static HALF: f64 = 0.5;
    const LEN: usize = 3;

    /// Height after falling for `t`, from `h0`, summed over a few samples; constants of every kind.
    #[differentiable(order = 3)]
    pub fn fall(t: f64) -> f64 {
        let mut s = 0.0;
        let w = [1.0; LEN];
        for i in 0..STEPS {
            let ti = t * (i + 1) as f64;
            s += w[i % LEN] * (100.0 - HALF * G * ti * ti);
        }
        s
    }
}

#[test]
fn module_constants_in_the_shadow() {
    use module_constants::{fall, fall_derivatives, G};
    // Σ_{i=1..4} (100 - G/2 i² t²) = 400 - 15 G t²
    let t = 1.5_f64;
    let d = fall_derivatives(t);
    assert_close(d[0], fall(t), 1e-12);
    assert_vec_close(
        &d,
        &[400.0 - 15.0 * G * t * t, -30.0 * G * t, -30.0 * G, 0.0],
        1e-12,
    );
}

mod more_constants {
    use autodiff::differentiable;

    pub const N: usize = 3;

    pub mod phys {
        pub const G: f64 = 9.81;
    }

    #[differentiable(order = 2)]
    pub fn typed_len(x: f64) -> f64 {
        let a: [f64; N] = [x; N];
        a[0] * a[N - 1]
    }

    #[differentiable(order = 2)]
    pub fn const_generic<const M: usize>(x: f64, w: [f64; M]) -> f64 {
        let mut s = 0.0;
        for i in 0..M {
            s += w[i] * x * x;
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn qualified(x: f64) -> f64 {
        phys::G * x * x + self::phys::G * x
    }

    #[differentiable(order = 2)]
    pub fn bool_cast(x: f64) -> f64 {
        let s = (x > 0.0) as i32 as f64;
        f64::from(x > 1.0) * x * x + s * 2f64 * x
    }

    pub const WEIGHTS: [f64; 4] = [1.0, 2.0, 3.0, 4.0];

    pub mod tables {
        pub static C: [f64; 2] = [0.5, 0.25];
    }

    /// Arrays of constants from outside, indexed (first order reads them as constants too).
    #[differentiable(order = 3)]
    pub fn poly(x: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..4 {
            s += WEIGHTS[i] * x.powi(i as i32);
        }
        s * tables::C[1] + WEIGHTS[0] * x
    }

    /// The length of an array of constants from outside (`WEIGHTS.len()`), bound and in a loop bound:
    /// a `usize`, left as written in the shadow (rustc's unsatisfied `[f64; 4]: Constant` before).
    #[differentiable(order = 2)]
    pub fn outside_len(x: f64) -> f64 {
        let n = WEIGHTS.len();
        let mut s = 0.0;
        for i in 0..WEIGHTS.len() {
            s += WEIGHTS[i] * x;
        }
        s * x * n as f64
    }

    /// An integer constant with the name of a `std::f64::consts` item.
    pub const E: usize = 2;

    #[differentiable(order = 2)]
    pub fn e_int(x: f64) -> f64 {
        let mut s = 0.0;
        for _ in 0..E {
            s += x * x;
        }
        s
    }

    /// `bool` parameters and locals cast to integers and floats.
    #[differentiable(order = 2)]
    pub fn flags(x: f64, flag: bool) -> f64 {
        let up = x > 0.0;
        x * x * (flag as i32 + up as i32) as f64 + f64::from(up) * x
    }

    #[differentiable]
    pub fn digits(x: f64) -> f64 {
        let d = f64::DIGITS as f64;
        x * d
    }
}

#[test]
fn array_lengths_qualified_constants_bools_and_suffixes_in_the_shadow() {
    use more_constants::*;
    // 40 x²: 80 x, 80.
    assert_eq!(outside_len(0.5), 10.0);
    assert_eq!(outside_len_derivatives(0.5), [10.0, 40.0, 80.0]);
    assert_eq!(outside_len_grad(0.5), (10.0, 40.0));
    assert_eq!(typed_len_derivatives(2.0), [4.0, 4.0, 2.0]);
    let (v, g, h) = const_generic_hessian(2.0, [1.0, 2.0]);
    assert_eq!(
        (v, g, h),
        (
            12.0,
            (12.0, [4.0, 4.0]),
            vec![
                vec![6.0, 4.0, 4.0],
                vec![4.0, 0.0, 0.0],
                vec![4.0, 0.0, 0.0],
            ]
        )
    );
    let g = phys::G;
    assert_vec_close(
        &qualified_derivatives(2.0),
        &[4.0 * g + 2.0 * g, 5.0 * g, 2.0 * g],
        1e-13,
    );
    // x > 1: x^2 + 2x; 0 < x <= 1: 2x; x <= 0: 0
    assert_eq!(bool_cast_derivatives(2.0), [8.0, 6.0, 2.0]);
    assert_eq!(bool_cast_derivatives(0.5), [1.0, 2.0, 0.0]);
    assert_eq!(bool_cast_derivatives(-1.0), [0.0, 0.0, 0.0]);
    assert_eq!(digits_grad(2.0), (30.0, 15.0));
    assert_eq!(digits(2.0), 30.0);
    assert_eq!(e_int_derivatives(3.0), [e_int(3.0), 12.0, 4.0]);
    // flag and x > 0: 2x^2 + x
    assert_eq!(flags_derivatives(3.0, true), [21.0, 13.0, 4.0]);
    assert_eq!(flags_derivatives(3.0, true)[0], flags(3.0, true));
    assert_eq!(flags_derivatives(3.0, false), [12.0, 7.0, 2.0]);
    assert_eq!(flags_derivatives(-3.0, true), [9.0, -6.0, 2.0]);
    assert_eq!(flags_derivatives(-3.0, false), [0.0, 0.0, 0.0]);
    // (1 + 2x + 3x^2 + 4x^3) / 4 + x
    for i in 0..20 {
        let x = -2.0 + 0.21 * f64::from(i);
        let d = poly_derivatives(x);
        let reference = [
            (1.0 + 2.0 * x + 3.0 * x * x + 4.0 * x * x * x) * 0.25 + x,
            (2.0 + 6.0 * x + 12.0 * x * x) * 0.25 + 1.0,
            (6.0 + 24.0 * x) * 0.25,
            6.0,
        ];
        assert_vec_close(&d, &reference, 1e-12);
        assert_close(poly(x), reference[0], 1e-12);
        assert_close(poly_grad(x).1, reference[1], 1e-12);
        assert_close(poly_jvp(x, 1.0).1, reference[1], 1e-12);
    }
    // The values are the primal's.
    for x in [-1.0, 0.5, 2.0] {
        assert_eq!(typed_len_derivatives(x)[0], typed_len(x));
        assert_eq!(
            const_generic_hessian(x, [1.0, 2.0]).0,
            const_generic(x, [1.0, 2.0])
        );
        assert_eq!(qualified_derivatives(x)[0], qualified(x));
        assert_eq!(bool_cast_derivatives(x)[0], bool_cast(x));
    }
}

mod outside_slices {
    use autodiff::{differentiable, Float};

    pub const W: &[f64] = &[1.0, 2.0, 3.0];
    pub static V: [f64; 2] = [0.5, 1.5];

    #[differentiable]
    pub fn f(x: f64) -> f64 {
        W[2] * x + V[1] * x * x
    }

    #[differentiable(order = 2)]
    pub fn g<T: Float>(x: T) -> T {
        x * T::from(W[1]).unwrap_or_else(T::nan) * x
    }
}

#[test]
fn const_slices_and_statics_from_outside() {
    use outside_slices::*;
    for i in 0..10 {
        let x = -2.0 + 0.45 * f64::from(i);
        let (v, d) = f_grad(x);
        assert_close(v, f(x), 1e-15);
        assert_close(d, 3.0 + 3.0 * x, 1e-14);
        assert_vec_close(&g_derivatives(x), &[g(x), 4.0 * x, 4.0], 1e-14);
    }
}

// ---- plain helpers called with constant float arguments ----

/// `ln Γ` at half-integers, by recurrence: a plain `f64` helper, not differentiable.
fn ln_gamma_half(x: f64) -> f64 {
    let (mut y, mut value) = if x.fract() == 0.0 {
        (1.0, 0.0)
    } else {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    };
    while y < x {
        value += y.ln();
        y += 1.0;
    }
    value
}

/// A plain helper with a float argument and an integer result.
fn bucket(scale: f64, n: usize) -> usize {
    ((scale * n as f64) as usize).min(n - 1)
}

/// Calls of plain helpers whose float arguments are constants (`0.5 * n as f64`): the generic copy calls them
/// as written, as the GMM objective's Wishart constant does.
#[differentiable(order = 2)]
fn with_plain_helpers(x: f64, y: f64, n: usize) -> f64 {
    let constant = ln_gamma_half(0.5 * n as f64) + ln_gamma_half(n as f64 + 1.5);
    let k = bucket(0.3, n);
    (x * y).sin() * constant + x * x * k as f64 - constant * y
}

#[test]
fn plain_helpers_with_constant_arguments_at_second_order() {
    for (x, y, n) in [(0.3, -0.7, 5), (1.1, 0.4, 2), (-0.6, 1.9, 7)] {
        let constant = ln_gamma_half(0.5 * n as f64) + ln_gamma_half(n as f64 + 1.5);
        let k = bucket(0.3, n) as f64;
        let (value, (gx, gy), h) = with_plain_helpers_hessian(x, y, n);
        assert_close(value, with_plain_helpers(x, y, n), 1e-15);
        let (s, co) = ((x * y).sin(), (x * y).cos());
        assert_close(gx, co * y * constant + 2.0 * x * k, 1e-12);
        assert_close(gy, co * x * constant - constant, 1e-12);
        let hand = vec![
            vec![-s * y * y * constant + 2.0 * k, (co - s * x * y) * constant],
            vec![(co - s * x * y) * constant, -s * x * x * constant],
        ];
        assert_mat_close(&h, &hand, 1e-12);
        let grad = |p: &[f64]| {
            let (_, (a, b)) = with_plain_helpers_grad(p[0], p[1], n);
            vec![a, b]
        };
        assert_mat_close(&h, &fd_hessian(grad, &[x, y]), 1e-6);
    }
}

/// An `f64` helper with derivatives, which an `f32` function calls with constants only.
#[differentiable]
fn wide_square_plus_one(x: f64) -> f64 {
    x * x + 1.0
}

/// An `f32` function calling an `f64` function with literals (`plain(1.0) as f32`), a constant expression of
/// literals and a suffixed literal, and an integer cast to `f64`: the generic copy passes each argument in
/// the callee's type (the literals as written), not in the function's own `f32`.
#[differentiable(order = 2)]
fn narrow_calls_wide(x: f32, n: usize) -> f32 {
    let a = wide_square_plus_one(1.0) as f32;
    let b = wide_square_plus_one(-2.0 * 1.5) as f32;
    let c = wide_square_plus_one(0.5f64) as f32;
    let d = wide_square_plus_one(n as f64) as f32;
    a * x * x + b * x.sin() + c * x * x * x + d
}

#[test]
fn an_f32_function_calls_an_f64_function_with_literals_at_second_order() {
    for (x, n) in [(0.3f32, 2usize), (-1.2, 0), (0.9, 5)] {
        let (a, b, c, d) = (2.0f32, 10.0f32, 1.25f32, (n * n) as f32 + 1.0);
        let (value, grad, h) = narrow_calls_wide_hessian(x, n);
        assert_eq!(value, narrow_calls_wide(x, n));
        let expected = a * x * x + b * x.sin() + c * x * x * x + d;
        assert_close(value as f64, expected as f64, 1e-6);
        let dg = 2.0 * a * x + b * x.cos() + 3.0 * c * x * x;
        assert_close(grad as f64, dg as f64, 1e-5);
        let d2 = 2.0 * a - b * x.sin() + 6.0 * c * x;
        assert_close(h[0][0] as f64, d2 as f64, 1e-5);
        let grad_at = |p: &[f64]| vec![narrow_calls_wide_grad(p[0] as f32, n).1 as f64];
        let step = fd_hessian_f32(grad_at, x as f64);
        assert_close(h[0][0] as f64, step, 1e-2);
        let [f0, f1, f2] = narrow_calls_wide_derivatives(x, n);
        assert_eq!(f0, value);
        assert_close(f1 as f64, dg as f64, 1e-5);
        assert_close(f2 as f64, d2 as f64, 1e-5);
    }
}

/// The derivative of an `f32` gradient by central differences with a step that `f32` resolves.
fn fd_hessian_f32(grad: impl Fn(&[f64]) -> Vec<f64>, x: f64) -> f64 {
    let step = 1e-2 * x.abs().max(1.0);
    (grad(&[x + step])[0] - grad(&[x - step])[0]) / (2.0 * step)
}
