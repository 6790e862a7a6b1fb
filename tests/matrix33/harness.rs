//! The harness of `tests/matrix33.rs` and `tests/matrix33_more.rs`: each cell of the contract's matrix
//! seen through a flat vector of its active inputs, checked against central differences
//! (`common::probe`) and its items against each other.

// Matrices indexed `h[i][j]` as the formulas write them.
#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments,
    dead_code
)]

pub use super::common::probe::{
    assert_near, assert_vec_near, check_vector, dot, fd1, fd_columns, fd_gradient, norm, seed_of,
    Flat, Lcg, GARBAGE,
};
// ---------------------------------------------------------------------------------------------------
// The harness: every cell seen through a flat vector of its active inputs.

pub const POINTS: usize = 4;

/// A function with a float result and its first-order items, each seen through the flat inputs.
pub struct Scalar<'a> {
    pub name: &'a str,
    pub n: usize,
    pub lo: f64,
    pub hi: f64,
    pub f: &'a dyn Fn(&[f64]) -> f64,
    pub grad: &'a dyn Fn(&[f64]) -> (f64, Flat),
    pub vjp: &'a dyn Fn(&[f64], f64) -> (f64, Flat),
    pub jvp: &'a dyn Fn(&[f64], &[f64]) -> (f64, f64),
    pub into: &'a dyn Fn(&[f64]) -> (f64, Flat),
    pub exact: Option<&'a dyn Fn(&[f64]) -> Flat>,
}

#[track_caller]
pub fn scalar(c: Scalar) {
    let mut rng = Lcg::new(seed_of(c.name));
    for _ in 0..POINTS {
        let x = rng.vec(c.n, c.lo, c.hi);
        let at = format!("{} at {x:?}", c.name);
        let value = (c.f)(&x);
        assert!(value.is_finite(), "{at}: value {value}");
        let (v, g) = (c.grad)(&x);
        assert_eq!(g.len(), c.n, "{at}: gradient length");
        assert_near(v, value, 1e-12, 0.0, &format!("{at}: _grad's value"));
        let fd = fd_gradient(c.f, &x);
        assert_vec_near(&g, &fd, 1e-6, &format!("{at}: _grad against differences"));
        if let Some(exact) = c.exact {
            assert_vec_near(
                &g,
                &exact(&x),
                1e-10,
                &format!("{at}: _grad against the formula"),
            );
        }
        let (vv, g1) = (c.vjp)(&x, 1.0);
        assert_near(vv, value, 1e-12, 0.0, &format!("{at}: _vjp's value"));
        assert_vec_near(&g1, &g, 1e-12, &format!("{at}: _vjp(1) = _grad"));
        let d = rng.uniform(-2.0, 2.0);
        let (_, gd) = (c.vjp)(&x, d);
        let scaled: Flat = g.iter().map(|a| a * d).collect();
        assert_vec_near(&gd, &scaled, 1e-12, &format!("{at}: _vjp({d}) = {d} _grad"));
        let t = rng.vec(c.n, -1.0, 1.0);
        let (jv, jd) = (c.jvp)(&x, &t);
        assert_near(jv, value, 1e-12, 0.0, &format!("{at}: _jvp's value"));
        let what = format!("{at}: _jvp along {t:?}");
        assert_near(jd, dot(&g, &t), 1e-10, norm(&g) * norm(&t), &what);
        let (iv, ig) = (c.into)(&x);
        assert_near(iv, value, 1e-12, 0.0, &format!("{at}: _grad_into's value"));
        assert_vec_near(&ig, &g, 1e-12, &format!("{at}: _grad_into = _grad"));
    }
}

/// The `order = 2` items of a function with a float result, through the flat inputs.
pub struct Second<'a> {
    pub name: &'a str,
    pub n: usize,
    pub lo: f64,
    pub hi: f64,
    pub grad: &'a dyn Fn(&[f64]) -> (f64, Flat),
    pub hessian: &'a dyn Fn(&[f64]) -> (f64, Flat, Vec<Flat>),
    pub hvp: &'a dyn Fn(&[f64], &[f64]) -> (f64, Flat, Flat),
    pub exact: Option<&'a dyn Fn(&[f64]) -> Vec<Flat>>,
}

#[track_caller]
pub fn second(c: Second) {
    let mut rng = Lcg::new(seed_of(c.name) ^ 2);
    for _ in 0..POINTS {
        let x = rng.vec(c.n, c.lo, c.hi);
        let at = format!("{} at {x:?}", c.name);
        let (v, g) = (c.grad)(&x);
        let (hv, hg, h) = (c.hessian)(&x);
        assert_near(hv, v, 1e-12, 0.0, &format!("{at}: _hessian's value"));
        assert_vec_near(&hg, &g, 1e-11, &format!("{at}: _hessian's gradient"));
        assert_eq!(h.len(), c.n, "{at}: Hessian rows");
        let columns = fd_columns(&|y: &[f64]| (c.grad)(y).1, &x);
        let scale = columns.iter().map(|col| norm(col)).fold(1.0, f64::max);
        for i in 0..c.n {
            assert_eq!(h[i].len(), c.n, "{at}: Hessian row {i}");
            for j in 0..c.n {
                let what = format!("{at}: H[{i}][{j}] against differences of _grad");
                assert_near(h[i][j], columns[j][i], 1e-6, scale, &what);
                let what = format!("{at}: H symmetric at {i},{j}");
                assert_near(h[i][j], h[j][i], 1e-10, scale, &what);
            }
        }
        if let Some(exact) = c.exact {
            let e = exact(&x);
            for i in 0..c.n {
                assert_vec_near(
                    &h[i],
                    &e[i],
                    1e-10,
                    &format!("{at}: H row {i} against the formula"),
                );
            }
        }
        for j in 0..c.n {
            let mut unit = vec![0.0; c.n];
            unit[j] = 1.0;
            let (pv, pg, p) = (c.hvp)(&x, &unit);
            assert_near(pv, v, 1e-12, 0.0, &format!("{at}: _hvp's value"));
            assert_vec_near(&pg, &g, 1e-11, &format!("{at}: _hvp's gradient"));
            let col: Flat = (0..c.n).map(|i| h[i][j]).collect();
            assert_vec_near(&p, &col, 1e-11, &format!("{at}: _hvp(e{j}) = H column {j}"));
        }
        let d = rng.vec(c.n, -1.0, 1.0);
        let (_, _, p) = (c.hvp)(&x, &d);
        let hd: Flat = (0..c.n).map(|i| dot(&h[i], &d)).collect();
        assert_vec_near(&p, &hd, 1e-11, &format!("{at}: _hvp({d:?}) = H d"));
    }
}

/// `_derivatives` of a function of one active scalar: entry 0 against the function, 1 against `_grad`, entry `k`
/// against central differences of entry `k - 1`, and all against the formula where given.
#[track_caller]
pub fn derivatives(
    name: &str,
    lo: f64,
    hi: f64,
    f: &dyn Fn(f64) -> f64,
    d: &dyn Fn(f64) -> Flat,
    grad: &dyn Fn(f64) -> (f64, f64),
    exact: Option<&dyn Fn(f64) -> Flat>,
) {
    let mut rng = Lcg::new(seed_of(name) ^ 3);
    for _ in 0..POINTS {
        let x = rng.uniform(lo, hi);
        let at = format!("{name} at {x}");
        let ds = d(x);
        let (v, g) = grad(x);
        assert_near(
            ds[0],
            f(x),
            1e-12,
            0.0,
            &format!("{at}: derivative 0 = the function"),
        );
        assert_near(v, f(x), 1e-12, 0.0, &format!("{at}: _grad's value"));
        assert_near(ds[1], g, 1e-12, 0.0, &format!("{at}: derivative 1 = _grad"));
        for k in 2..ds.len() {
            let fd = fd1(&|y| d(y)[k - 1], x, 1e-5);
            let what = format!("{at}: derivative {k} against differences of {}", k - 1);
            assert_near(ds[k], fd, 1e-6, 1.0, &what);
        }
        if let Some(exact) = exact {
            let e = exact(x);
            assert_vec_near(
                &ds,
                &e,
                1e-10,
                &format!("{at}: derivatives against the formula"),
            );
        }
    }
}

/// A function with a vector result: `_jacobian` (when given), `_vjp` and `_jvp` against central
/// differences (`common::probe::check_vector`), and `_jacobian`'s rows against `_vjp` of unit
/// cotangents, its columns against `_jvp` of unit tangents.
#[track_caller]
pub fn vector(
    name: &str,
    n: usize,
    lo: f64,
    hi: f64,
    f: &dyn Fn(&[f64]) -> Flat,
    vjp: &dyn Fn(&[f64], &[f64]) -> (Flat, Flat),
    jvp: &dyn Fn(&[f64], &[f64]) -> (Flat, Flat),
    jacobian: Option<&dyn Fn(&[f64]) -> Vec<Flat>>,
) {
    check_vector(
        name,
        POINTS,
        move |r| r.vec(n, lo, hi),
        f,
        vjp,
        jvp,
        jacobian,
    );
    let Some(jac) = jacobian else { return };
    let mut rng = Lcg::new(seed_of(name) ^ 5);
    for _ in 0..POINTS {
        let x = rng.vec(n, lo, hi);
        let at = format!("{name} at {x:?}");
        let jm = jac(&x);
        let m = f(&x).len();
        for i in 0..m {
            let mut unit = vec![0.0; m];
            unit[i] = 1.0;
            let (_, row) = vjp(&x, &unit);
            assert_vec_near(
                &jm[i],
                &row,
                1e-12,
                &format!("{at}: J row {i} = _vjp(e{i})"),
            );
        }
        for j in 0..n {
            let mut unit = vec![0.0; n];
            unit[j] = 1.0;
            let (_, col) = jvp(&x, &unit);
            let jcol: Flat = (0..m).map(|i| jm[i][j]).collect();
            assert_vec_near(
                &jcol,
                &col,
                1e-12,
                &format!("{at}: J column {j} = _jvp(e{j})"),
            );
        }
    }
}

pub fn arr<const N: usize>(x: &[f64]) -> [f64; N] {
    x.try_into().expect("length")
}

pub fn rows(x: &[f64], cols: usize) -> Vec<Vec<f64>> {
    x.chunks(cols).map(|r| r.to_vec()).collect()
}

pub fn flat(m: &[Vec<f64>]) -> Flat {
    m.iter().flatten().copied().collect()
}

pub fn nested<const M: usize, const N: usize>(x: &[f64]) -> [[f64; M]; N] {
    std::array::from_fn(|i| std::array::from_fn(|j| x[i * M + j]))
}

pub fn flat_nested<const M: usize, const N: usize>(m: &[[f64; M]; N]) -> Flat {
    m.iter().flatten().copied().collect()
}

pub fn unit_dir(n: usize, j: usize) -> Flat {
    (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect()
}
