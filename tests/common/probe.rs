//! The harness of the trust probes (`probe_autograd.rs`, `probe_zygote.rs`, `probe_ported.rs`): a
//! deterministic generator, central differences written here (no code shared with the macro or
//! `autodiff-core`), tolerant comparisons, and `Probe`, which checks a function's generated items through
//! a flat vector of its active inputs.

// Matrices indexed `h[i][j]` as the formulas write them.
#![allow(clippy::needless_range_loop, clippy::type_complexity)]

/// What `f_grad_into`'s buffers hold before the call: any component it leaves unwritten shows.
pub const GARBAGE: f64 = f64::NAN;

/// A 64-bit linear congruential generator (Knuth's MMIX constants).
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        let mut lcg = Lcg(seed ^ 0x2545_F491_4F6C_DD1D);
        lcg.unit();
        lcg
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// Central differences of `f` at `x`, with a step scaled to each input.
pub fn fd_gradient(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let mut plus = x.to_vec();
            let mut minus = x.to_vec();
            plus[i] += h;
            minus[i] -= h;
            (f(&plus) - f(&minus)) / (plus[i] - minus[i])
        })
        .collect()
}

/// Central differences of a vector-valued `g` at `x`: column `j` is the derivative along input `j`.
pub fn fd_columns(g: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    (0..x.len())
        .map(|j| {
            let h = 1e-5 * x[j].abs().max(1.0);
            let mut plus = x.to_vec();
            let mut minus = x.to_vec();
            plus[j] += h;
            minus[j] -= h;
            let (gp, gm) = (g(&plus), g(&minus));
            gp.iter()
                .zip(&gm)
                .map(|(p, m)| (p - m) / (plus[j] - minus[j]))
                .collect()
        })
        .collect()
}

/// The central difference of a scalar function of one scalar.
pub fn fd1(f: &dyn Fn(f64) -> f64, x: f64, step: f64) -> f64 {
    let h = step * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / ((x + h) - (x - h))
}

pub fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

/// Asserts `|a - e| <= tol * max(1, |a|, |e|, scale)`; NaN never passes.
#[track_caller]
pub fn assert_near(a: f64, e: f64, tol: f64, scale: f64, what: &str) {
    let bound = tol * 1.0_f64.max(a.abs()).max(e.abs()).max(scale);
    assert!(
        (a - e).abs() <= bound || a == e,
        "{what}: got {a:e}, expected {e:e} (difference {:e}, bound {bound:e})",
        (a - e).abs()
    );
}

#[track_caller]
pub fn assert_vec_near(a: &[f64], e: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), e.len(), "{what}: lengths differ");
    let scale = norm(a).max(norm(e));
    for i in 0..a.len() {
        assert_near(a[i], e[i], tol, scale, &format!("{what}[{i}]"));
    }
}

pub fn seed_of(name: &str) -> u64 {
    name.bytes()
        .fold(29u64, |h, b| h.wrapping_mul(131).wrapping_add(b as u64))
}

pub type Flat = Vec<f64>;
pub type FlatFn<'a> = Box<dyn Fn(&[f64]) -> f64 + 'a>;
pub type GradFn<'a> = Box<dyn Fn(&[f64]) -> (f64, Flat) + 'a>;
pub type JvpFn<'a> = Box<dyn Fn(&[f64], &[f64]) -> (f64, f64) + 'a>;
pub type HessFn<'a> = Box<dyn Fn(&[f64]) -> (f64, Flat, Vec<Flat>) + 'a>;
pub type AnalyticFn<'a> = Box<dyn Fn(&[f64]) -> Flat + 'a>;

/// One function with a float result, seen through a flat vector of its active inputs.
pub struct Probe<'a> {
    pub name: &'a str,
    pub f: FlatFn<'a>,
    pub grad: Option<GradFn<'a>>,
    pub jvp: Option<JvpFn<'a>>,
    pub grad_into: Option<GradFn<'a>>,
    pub hessian: Option<HessFn<'a>>,
    pub analytic: Option<AnalyticFn<'a>>,
    /// Compare the gradient against central differences (off where a custom gradient is not the
    /// derivative on purpose).
    pub fd: bool,
    /// Compare the Hessian against central differences of `f_grad` (off where it is not the Jacobian
    /// of `f_grad` on purpose).
    pub fd_hessian: bool,
}

impl<'a> Probe<'a> {
    pub fn new(name: &'a str, f: impl Fn(&[f64]) -> f64 + 'a) -> Self {
        Probe {
            name,
            f: Box::new(f),
            grad: None,
            jvp: None,
            grad_into: None,
            hessian: None,
            analytic: None,
            fd: true,
            fd_hessian: true,
        }
    }

    pub fn grad(mut self, g: impl Fn(&[f64]) -> (f64, Flat) + 'a) -> Self {
        self.grad = Some(Box::new(g));
        self
    }

    pub fn jvp(mut self, j: impl Fn(&[f64], &[f64]) -> (f64, f64) + 'a) -> Self {
        self.jvp = Some(Box::new(j));
        self
    }

    pub fn grad_into(mut self, g: impl Fn(&[f64]) -> (f64, Flat) + 'a) -> Self {
        self.grad_into = Some(Box::new(g));
        self
    }

    pub fn hessian(mut self, h: impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) + 'a) -> Self {
        self.hessian = Some(Box::new(h));
        self
    }

    pub fn analytic(mut self, a: impl Fn(&[f64]) -> Flat + 'a) -> Self {
        self.analytic = Some(Box::new(a));
        self
    }

    pub fn no_fd(mut self) -> Self {
        self.fd = false;
        self
    }

    pub fn no_hessian_fd(mut self) -> Self {
        self.fd_hessian = false;
        self
    }

    /// Leave `f_jvp` unchecked against `f_grad`: for a custom gradient that is not linear in the
    /// cotangent (a clipped one), forward and reverse mode differ by design.
    pub fn no_jvp(mut self) -> Self {
        self.jvp = None;
        self
    }

    /// Checks every item given at `points` inputs drawn by `sample`.
    #[track_caller]
    pub fn run(self, points: usize, sample: impl Fn(&mut Lcg) -> Flat) {
        let mut rng = Lcg::new(seed_of(self.name));
        let grad = self.grad.as_ref().expect("a probe needs f_grad");
        for _ in 0..points {
            let x = sample(&mut rng);
            let at = format!("{} at {x:?}", self.name);
            let value = (self.f)(&x);
            let (v, g) = grad(&x);
            assert_near(v, value, 1e-12, 0.0, &format!("{at}: f_grad's value"));
            if self.fd {
                let fd = fd_gradient(&*self.f, &x);
                assert_vec_near(
                    &g,
                    &fd,
                    1e-6,
                    &format!("{at}: f_grad against central differences"),
                );
            }
            if let Some(analytic) = &self.analytic {
                assert_vec_near(
                    &g,
                    &analytic(&x),
                    1e-9,
                    &format!("{at}: f_grad against the formula"),
                );
            }
            if let Some(jvp) = &self.jvp {
                let t = rng.vec(x.len(), -1.0, 1.0);
                let (jv, d) = jvp(&x, &t);
                assert_near(jv, value, 1e-12, 0.0, &format!("{at}: f_jvp's value"));
                assert_near(
                    d,
                    dot(&g, &t),
                    1e-9,
                    norm(&g) * norm(&t),
                    &format!("{at}: f_jvp along {t:?}"),
                );
            }
            if let Some(into) = &self.grad_into {
                let (iv, ig) = into(&x);
                assert_near(iv, value, 1e-12, 0.0, &format!("{at}: f_grad_into's value"));
                assert_vec_near(&ig, &g, 1e-12, &format!("{at}: f_grad_into"));
            }
            if let Some(hessian) = &self.hessian {
                let (hv, hg, h) = hessian(&x);
                assert_near(hv, value, 1e-12, 0.0, &format!("{at}: f_hessian's value"));
                assert_vec_near(&hg, &g, 1e-10, &format!("{at}: f_hessian's gradient"));
                assert_eq!(h.len(), x.len(), "{at}: Hessian rows");
                for i in 0..x.len() {
                    assert_eq!(h[i].len(), x.len(), "{at}: Hessian row {i}");
                }
                // Symmetric where it is the Jacobian of a true gradient.
                if self.fd_hessian {
                    for i in 0..x.len() {
                        for j in 0..i {
                            let what = format!("{at}: H symmetric at {i},{j}");
                            assert_near(h[i][j], h[j][i], 1e-9, 1.0, &what);
                        }
                    }
                    let columns = fd_columns(&|y: &[f64]| grad(y).1, &x);
                    let scale = columns.iter().map(|c| norm(c)).fold(0.0, f64::max);
                    for i in 0..x.len() {
                        for j in 0..x.len() {
                            assert_near(
                                h[i][j],
                                columns[j][i],
                                1e-5,
                                scale,
                                &format!("{at}: H[{i}][{j}]"),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A probe of a function of one scalar, from its generated items.
pub fn one<'a>(
    name: &'a str,
    f: fn(f64) -> f64,
    g: fn(f64) -> (f64, f64),
    j: fn(f64, f64) -> (f64, f64),
    gi: fn(f64, &mut f64) -> f64,
) -> Probe<'a> {
    Probe::new(name, move |x| f(x[0]))
        .grad(move |x| {
            let (v, d) = g(x[0]);
            (v, vec![d])
        })
        .jvp(move |x, t| j(x[0], t[0]))
        .grad_into(move |x| {
            let mut d = GARBAGE;
            let v = gi(x[0], &mut d);
            (v, vec![d])
        })
}

/// `order = 2` (or higher) items of a function of one scalar: `f_hessian` and `f_derivatives`, which must agree.
pub fn hess1<const N: usize>(
    h: fn(f64) -> (f64, f64, Vec<Vec<f64>>),
    d: fn(f64) -> [f64; N],
) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    move |x| {
        let (v, g, m) = h(x[0]);
        let ds = d(x[0]);
        assert_near(ds[0], v, 1e-12, 0.0, "f_derivatives[0]");
        assert_near(ds[1], g, 1e-12, g.abs(), "f_derivatives[1]");
        assert_near(ds[2], m[0][0], 1e-10, m[0][0].abs(), "f_derivatives[2]");
        (v, vec![g], m)
    }
}

pub type Two = (f64, f64);

pub fn two<'a>(
    name: &'a str,
    f: fn(f64, f64) -> f64,
    g: fn(f64, f64) -> (f64, Two),
    j: fn(f64, f64, Two) -> (f64, f64),
    gi: fn(f64, f64, (&mut f64, &mut f64)) -> f64,
) -> Probe<'a> {
    Probe::new(name, move |x| f(x[0], x[1]))
        .grad(move |x| {
            let (v, d) = g(x[0], x[1]);
            (v, vec![d.0, d.1])
        })
        .jvp(move |x, t| j(x[0], x[1], (t[0], t[1])))
        .grad_into(move |x| {
            let (mut a, mut b) = (GARBAGE, GARBAGE);
            let v = gi(x[0], x[1], (&mut a, &mut b));
            (v, vec![a, b])
        })
}

pub fn hess2(
    h: fn(f64, f64) -> (f64, Two, Vec<Vec<f64>>),
) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    move |x| {
        let (v, g, m) = h(x[0], x[1]);
        (v, vec![g.0, g.1], m)
    }
}

/// A probe of a function of one slice.
pub fn slice<'a>(
    name: &'a str,
    f: fn(&[f64]) -> f64,
    g: fn(&[f64]) -> (f64, Vec<f64>),
    j: fn(&[f64], Vec<f64>) -> (f64, f64),
    gi: fn(&[f64], &mut [f64]) -> f64,
) -> Probe<'a> {
    Probe::new(name, f)
        .grad(g)
        .jvp(move |x, t| j(x, t.to_vec()))
        .grad_into(move |x| {
            let mut d = vec![GARBAGE; x.len()];
            let v = gi(x, &mut d);
            (v, d)
        })
}

/// Checks a function with a vector result through its flat view: `f_jacobian` (when given) against
/// central differences, `f_vjp` against a random cotangent times that Jacobian, `f_jvp` against the
/// Jacobian times a random tangent.
#[track_caller]
pub fn check_vector(
    name: &str,
    points: usize,
    sample: impl Fn(&mut Lcg) -> Flat,
    f: &dyn Fn(&[f64]) -> Flat,
    vjp: &dyn Fn(&[f64], &[f64]) -> (Flat, Flat),
    jvp: &dyn Fn(&[f64], &[f64]) -> (Flat, Flat),
    jacobian: Option<&dyn Fn(&[f64]) -> Vec<Flat>>,
) {
    let mut rng = Lcg::new(seed_of(name));
    for _ in 0..points {
        let x = sample(&mut rng);
        let at = format!("{name} at {x:?}");
        let y = f(&x);
        let columns = fd_columns(f, &x);
        let scale = columns.iter().map(|c| norm(c)).fold(1.0, f64::max);
        if let Some(jac) = jacobian {
            let jm = jac(&x);
            assert_eq!(jm.len(), y.len(), "{at}: Jacobian rows");
            for i in 0..y.len() {
                assert_eq!(jm[i].len(), x.len(), "{at}: Jacobian row {i}");
                for j in 0..x.len() {
                    assert_near(
                        jm[i][j],
                        columns[j][i],
                        1e-6,
                        scale,
                        &format!("{at}: J[{i}][{j}]"),
                    );
                }
            }
        }
        let c = rng.vec(y.len(), -1.0, 1.0);
        let (vy, g) = vjp(&x, &c);
        assert_vec_near(&vy, &y, 1e-12, &format!("{at}: f_vjp's value"));
        assert_eq!(g.len(), x.len(), "{at}: f_vjp's length");
        for j in 0..x.len() {
            let expected: f64 = (0..y.len()).map(|i| c[i] * columns[j][i]).sum();
            assert_near(
                g[j],
                expected,
                1e-6,
                scale * norm(&c),
                &format!("{at}: f_vjp[{j}]"),
            );
        }
        let t = rng.vec(x.len(), -1.0, 1.0);
        let (jy, d) = jvp(&x, &t);
        assert_vec_near(&jy, &y, 1e-12, &format!("{at}: f_jvp's value"));
        assert_eq!(d.len(), y.len(), "{at}: f_jvp's length");
        for i in 0..y.len() {
            let expected: f64 = (0..x.len()).map(|j| columns[j][i] * t[j]).sum();
            assert_near(
                d[i],
                expected,
                1e-6,
                scale * norm(&t),
                &format!("{at}: f_jvp[{i}]"),
            );
        }
        // The two modes against each other, to rounding: c . (J t) = (c J) . t.
        assert_near(
            dot(&c, &d),
            dot(&g, &t),
            1e-10,
            norm(&c) * norm(&t) * scale,
            &format!("{at}: c.Jt = cJ.t"),
        );
    }
}

/// `order = 3`: `f_derivatives` against central differences of its own lower entries.
#[track_caller]
pub fn check_third(name: &str, d: fn(f64) -> [f64; 4], points: usize, lo: f64, hi: f64) {
    let mut rng = Lcg::new(seed_of(name));
    for _ in 0..points {
        check_third_at(name, &d, rng.uniform(lo, hi));
    }
}

/// `order = 3` at one point: `f_derivatives` against central differences of its own lower entries.
#[track_caller]
pub fn check_third_at(name: &str, d: &dyn Fn(f64) -> [f64; 4], x: f64) {
    let ds = d(x);
    for k in 1..4 {
        let fd = fd1(&|y| d(y)[k - 1], x, 1e-6);
        let scale = ds[k].abs().max(fd.abs());
        assert_near(
            ds[k],
            fd,
            1e-5,
            scale,
            &format!("{name} at {x}: derivative {k}"),
        );
    }
}

pub fn range(n: usize, lo: f64, hi: f64) -> impl Fn(&mut Lcg) -> Flat {
    move |r| r.vec(n, lo, hi)
}

/// Draws from `[lo, hi]` away from the points `k * period + offset` (jumps and kinks).
pub fn away_from(
    n: usize,
    lo: f64,
    hi: f64,
    period: f64,
    offset: f64,
) -> impl Fn(&mut Lcg) -> Flat {
    move |r| {
        (0..n)
            .map(|_| loop {
                let x = r.uniform(lo, hi);
                let phase = ((x - offset) / period).rem_euclid(1.0);
                if phase > 0.01 && phase < 0.99 {
                    break x;
                }
            })
            .collect()
    }
}

pub type Three = (f64, f64, f64);

pub fn three<'a>(
    name: &'a str,
    f: fn(f64, f64, f64) -> f64,
    g: fn(f64, f64, f64) -> (f64, Three),
    j: fn(f64, f64, f64, Three) -> (f64, f64),
    gi: fn(f64, f64, f64, (&mut f64, &mut f64, &mut f64)) -> f64,
) -> Probe<'a> {
    Probe::new(name, move |x| f(x[0], x[1], x[2]))
        .grad(move |x| {
            let (v, d) = g(x[0], x[1], x[2]);
            (v, vec![d.0, d.1, d.2])
        })
        .jvp(move |x, t| j(x[0], x[1], x[2], (t[0], t[1], t[2])))
        .grad_into(move |x| {
            let (mut a, mut b, mut c) = (GARBAGE, GARBAGE, GARBAGE);
            let v = gi(x[0], x[1], x[2], (&mut a, &mut b, &mut c));
            (v, vec![a, b, c])
        })
}

pub fn hess3(
    h: fn(f64, f64, f64) -> (f64, Three, Vec<Vec<f64>>),
) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    move |x| {
        let (v, g, m) = h(x[0], x[1], x[2]);
        (v, vec![g.0, g.1, g.2], m)
    }
}

pub fn hess_slice(
    h: fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    h
}

/// Distinct values, at least `gap` apart (away from the ties of comparisons and sorts).
pub fn distinct(n: usize, lo: f64, hi: f64, gap: f64) -> impl Fn(&mut Lcg) -> Flat {
    move |r| loop {
        let x = r.vec(n, lo, hi);
        let ok = (0..n).all(|i| (0..i).all(|j| (x[i] - x[j]).abs() > gap));
        if ok {
            break x;
        }
    }
}

// Output parameters (`outputs20.rs`, `writes21.rs`): eight points each, cotangents at random.

/// `_vjp` of a function `(x, out) -> f64` whose `G` holds `out`, against central differences over `x`
/// and the incoming `out` together, at several points, with random cotangents.
pub fn check_read(
    name: &str,
    nx: usize,
    nout: usize,
    f: &dyn Fn(&[f64], &mut [f64]) -> f64,
    vjp: &dyn Fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, (Vec<f64>, Vec<f64>)),
) {
    let mut lcg = Lcg::new(seed_of(name));
    for _ in 0..8 {
        let flat = lcg.vec(nx + nout, -1.5, 1.5);
        let d_ret = lcg.uniform(-1.0, 1.0);
        let d_out = lcg.vec(nout, -1.0, 1.0);
        let scalar = |v: &[f64]| {
            let mut out = v[nx..].to_vec();
            let r = f(&v[..nx], &mut out);
            d_ret * r + dot(&d_out, &out)
        };
        let fd = fd_gradient(&scalar, &flat);
        let mut out = flat[nx..].to_vec();
        let (value, (gx, gout)) = vjp(&flat[..nx], &mut out, d_ret, &d_out);
        let mut primal_out = flat[nx..].to_vec();
        let primal = f(&flat[..nx], &mut primal_out);
        assert_near(value, primal, 1e-12, 1.0, &format!("{name}: value"));
        assert_vec_near(&out, &primal_out, 1e-12, &format!("{name}: out"));
        let got: Vec<f64> = gx.iter().chain(&gout).copied().collect();
        assert_vec_near(&got, &fd, 1e-6, &format!("{name}: gradient at {flat:?}"));
    }
}

/// `_vjp` of a function `(x, out) -> f64` whose `G` is `x`'s alone, against central differences over
/// `x`, with the output's buffer full of NaN going in (any use of the incoming value would show).
pub fn check_written(
    name: &str,
    nx: usize,
    nout: usize,
    f: &dyn Fn(&[f64], &mut [f64]) -> f64,
    vjp: &dyn Fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>),
) {
    let mut lcg = Lcg::new(seed_of(name));
    for _ in 0..8 {
        let x = lcg.vec(nx, -1.5, 1.5);
        let d_ret = lcg.uniform(-1.0, 1.0);
        let d_out = lcg.vec(nout, -1.0, 1.0);
        let scalar = |v: &[f64]| {
            let mut out = vec![f64::NAN; nout];
            let r = f(v, &mut out);
            d_ret * r + dot(&d_out, &out)
        };
        let fd = fd_gradient(&scalar, &x);
        let mut out = vec![f64::NAN; nout];
        let (value, g) = vjp(&x, &mut out, d_ret, &d_out);
        let mut primal_out = vec![f64::NAN; nout];
        let primal = f(&x, &mut primal_out);
        assert!(
            primal.is_finite(),
            "{name}: the primal used the incoming value"
        );
        assert_near(value, primal, 1e-12, 1.0, &format!("{name}: value"));
        assert_vec_near(&out, &primal_out, 1e-12, &format!("{name}: out"));
        assert_vec_near(&g, &fd, 1e-6, &format!("{name}: gradient at {x:?}"));
    }
}
