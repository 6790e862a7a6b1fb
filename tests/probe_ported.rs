//! A trust probe written as a new user would: the small functions of google/tangent's test catalogue
//! (`tests/functions.py`) and plain numeric code in the style of JAX's grad tests, ported to Rust, and
//! the idioms numeric Rust is written in (`match` on integers, `if let`, compound `while` conditions,
//! early returns from nested loops, shadowing, helpers returning tuples, float method chains, iterator
//! chains, closures, `const` arrays, nested arrays, `Vec<Vec<f64>>`, output parameters, calls across
//! modules, custom gradients and methods of parameter structs).
//!
//! Every derivative is checked against oracles that share no code with the macro or `autodiff-core`:
//! central differences written in this file, and derivatives worked out by hand where they are short;
//! at many points drawn by a small deterministic generator. `f_jvp` is checked against `f_grad` along a
//! random tangent, `f_grad_into` against `f_grad` with its buffers filled with NaN first, and `f_hessian`
//! (`order = 2`) against central differences of `f_grad`.

// Indexed loops and explicit returns are the forms users write and what these programs test.
#![allow(clippy::needless_range_loop, clippy::needless_return)]

use autodiff::{custom_gradient, differentiable, Differentiable};

// ---------------------------------------------------------------------------------------------------
// The oracle: a deterministic generator, central differences, tolerant comparisons.
// ---------------------------------------------------------------------------------------------------

/// What `f_grad_into`'s buffers hold before the call: any component it leaves unwritten shows.
const GARBAGE: f64 = f64::NAN;

/// A 64-bit linear congruential generator (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    fn new(seed: u64) -> Self {
        let mut lcg = Lcg(seed ^ 0x9E37_79B9_7F4A_7C15);
        lcg.unit();
        lcg
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// Central differences of `f` at `x`, with a step scaled to each input.
fn fd_gradient(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
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

/// Central differences of a vector-valued `g` at `x`: column `i` is the derivative along input `i`.
fn fd_jacobian_columns(g: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    (0..x.len())
        .map(|i| {
            let h = 1e-5 * x[i].abs().max(1.0);
            let mut plus = x.to_vec();
            let mut minus = x.to_vec();
            plus[i] += h;
            minus[i] -= h;
            let (gp, gm) = (g(&plus), g(&minus));
            gp.iter()
                .zip(&gm)
                .map(|(p, m)| (p - m) / (plus[i] - minus[i]))
                .collect()
        })
        .collect()
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// Asserts `|a - e| <= tol * max(1, |a|, |e|, scale)`; NaN never passes.
#[track_caller]
fn assert_near(a: f64, e: f64, tol: f64, scale: f64, what: &str) {
    let bound = tol * 1.0_f64.max(a.abs()).max(e.abs()).max(scale);
    assert!(
        (a - e).abs() <= bound || a == e,
        "{what}: got {a:e}, expected {e:e} (difference {:e}, bound {bound:e})",
        (a - e).abs()
    );
}

#[track_caller]
fn assert_vec_near(a: &[f64], e: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), e.len(), "{what}: lengths differ");
    let scale = norm(a).max(norm(e));
    for i in 0..a.len() {
        assert_near(a[i], e[i], tol, scale, &format!("{what}[{i}]"));
    }
}

type Flat = Vec<f64>;
type FlatFn<'a> = Box<dyn Fn(&[f64]) -> f64 + 'a>;
type GradFn<'a> = Box<dyn Fn(&[f64]) -> (f64, Flat) + 'a>;
type JvpFn<'a> = Box<dyn Fn(&[f64], &[f64]) -> (f64, f64) + 'a>;
type HessFn<'a> = Box<dyn Fn(&[f64]) -> (f64, Flat, Vec<Flat>) + 'a>;
type AnalyticFn<'a> = Box<dyn Fn(&[f64]) -> Flat + 'a>;

/// One function under test, seen through a flat vector of its active inputs.
struct Probe<'a> {
    name: &'a str,
    f: FlatFn<'a>,
    grad: Option<GradFn<'a>>,
    jvp: Option<JvpFn<'a>>,
    grad_into: Option<GradFn<'a>>,
    hessian: Option<HessFn<'a>>,
    analytic: Option<AnalyticFn<'a>>,
    /// Compare the gradient against central differences (off where a custom gradient is not the
    /// derivative on purpose).
    fd: bool,
}

impl<'a> Probe<'a> {
    fn new(name: &'a str, f: impl Fn(&[f64]) -> f64 + 'a) -> Self {
        Probe {
            name,
            f: Box::new(f),
            grad: None,
            jvp: None,
            grad_into: None,
            hessian: None,
            analytic: None,
            fd: true,
        }
    }

    fn grad(mut self, g: impl Fn(&[f64]) -> (f64, Flat) + 'a) -> Self {
        self.grad = Some(Box::new(g));
        self
    }

    fn jvp(mut self, j: impl Fn(&[f64], &[f64]) -> (f64, f64) + 'a) -> Self {
        self.jvp = Some(Box::new(j));
        self
    }

    fn grad_into(mut self, g: impl Fn(&[f64]) -> (f64, Flat) + 'a) -> Self {
        self.grad_into = Some(Box::new(g));
        self
    }

    fn hessian(mut self, h: impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) + 'a) -> Self {
        self.hessian = Some(Box::new(h));
        self
    }

    fn analytic(mut self, a: impl Fn(&[f64]) -> Flat + 'a) -> Self {
        self.analytic = Some(Box::new(a));
        self
    }

    fn no_fd(mut self) -> Self {
        self.fd = false;
        self
    }

    /// Checks every item given at `points` inputs drawn by `sample`.
    #[track_caller]
    fn run(self, points: usize, sample: impl Fn(&mut Lcg) -> Flat) {
        let seed = self
            .name
            .bytes()
            .fold(17u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
        let mut rng = Lcg::new(seed);
        let grad = self.grad.as_ref().expect("a probe needs f_grad");
        for _ in 0..points {
            let x = sample(&mut rng);
            let at = format!("{} at {x:?}", self.name);
            let value = (self.f)(&x);
            let (v, g) = grad(&x);
            assert_near(v, value, 1e-12, 0.0, &format!("{at}: f_grad's value"));
            if self.fd {
                let fd = fd_gradient(&*self.f, &x);
                assert_vec_near(&g, &fd, 1e-6, &format!("{at}: f_grad against central differences"));
            }
            if let Some(analytic) = &self.analytic {
                assert_vec_near(&g, &analytic(&x), 1e-9, &format!("{at}: f_grad against the formula"));
            }
            if let Some(jvp) = &self.jvp {
                let t = rng.vec(x.len(), -1.0, 1.0);
                let (jv, dot) = jvp(&x, &t);
                let expected: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
                assert_near(jv, value, 1e-12, 0.0, &format!("{at}: f_jvp's value"));
                assert_near(dot, expected, 1e-9, norm(&g) * norm(&t), &format!("{at}: f_jvp along {t:?}"));
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
                let columns = fd_jacobian_columns(&|y: &[f64]| grad(y).1, &x);
                assert_eq!(h.len(), x.len(), "{at}: Hessian rows");
                let scale = columns.iter().map(|c| norm(c)).fold(0.0, f64::max);
                for i in 0..x.len() {
                    assert_eq!(h[i].len(), x.len(), "{at}: Hessian row {i}");
                    for j in 0..x.len() {
                        assert_near(h[i][j], columns[j][i], 1e-5, scale, &format!("{at}: H[{i}][{j}]"));
                    }
                }
            }
        }
    }
}

/// A probe of a function of one scalar, from its generated items.
fn one<'a>(
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

/// `order = 2` items of a function of one scalar: `f_hessian` and `f_derivatives`.
fn hess1(h: fn(f64) -> (f64, f64, Vec<Vec<f64>>), d: fn(f64) -> [f64; 3]) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    move |x| {
        let (v, g, m) = h(x[0]);
        let ds = d(x[0]);
        assert_near(ds[0], v, 1e-12, 0.0, "f_derivatives[0]");
        assert_near(ds[1], g, 1e-12, g.abs(), "f_derivatives[1]");
        assert_near(ds[2], m[0][0], 1e-10, m[0][0].abs(), "f_derivatives[2]");
        (v, vec![g], m)
    }
}

type Two = (f64, f64);

fn two<'a>(
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

fn hess2(h: fn(f64, f64) -> (f64, Two, Vec<Vec<f64>>)) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    move |x| {
        let (v, g, m) = h(x[0], x[1]);
        (v, vec![g.0, g.1], m)
    }
}

type Three = (f64, f64, f64);

fn three<'a>(
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

fn hess3(h: fn(f64, f64, f64) -> (f64, Three, Vec<Vec<f64>>)) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    move |x| {
        let (v, g, m) = h(x[0], x[1], x[2]);
        (v, vec![g.0, g.1, g.2], m)
    }
}

/// A probe of a function of one slice.
fn slice<'a>(
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

fn hess_slice(h: fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>)) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    h
}

fn range(n: usize, lo: f64, hi: f64) -> impl Fn(&mut Lcg) -> Flat {
    move |r| r.vec(n, lo, hi)
}

/// Draws from `[lo, hi]` away from the points `k * period + offset` (jumps and kinks).
fn away_from(n: usize, lo: f64, hi: f64, period: f64, offset: f64) -> impl Fn(&mut Lcg) -> Flat {
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

const POINTS: usize = 40;

// ---------------------------------------------------------------------------------------------------
// google/tangent tests/functions.py, ported.
// ---------------------------------------------------------------------------------------------------

mod tangent_catalogue {
    use super::*;

    #[differentiable(order = 2)]
    pub fn id_(a: f64) -> f64 {
        a
    }

    #[differentiable(order = 2)]
    pub fn unary_sub(a: f64) -> f64 {
        -a
    }

    #[differentiable(order = 2)]
    pub fn sum_(x: &[f64]) -> f64 {
        x.iter().sum()
    }

    /// The parameter is shadowed by a value of another type.
    #[differentiable(order = 2)]
    pub fn overwrite_call(x: &[f64]) -> f64 {
        let x: f64 = x.iter().sum();
        let x = x * x;
        x
    }

    #[differentiable(order = 2)]
    pub fn tanh(a: f64) -> f64 {
        a.tanh()
    }

    #[differentiable(order = 2)]
    pub fn i_assign(a: f64) -> f64 {
        let b = a;
        b
    }

    #[differentiable(order = 2)]
    pub fn increment(a: f64) -> f64 {
        a + 1.0
    }

    #[differentiable(order = 2)]
    pub fn saxpy(a: f64, b: f64, c: f64) -> f64 {
        a * b + c
    }

    #[differentiable(order = 2)]
    pub fn mul(a: f64, b: f64) -> f64 {
        a * b
    }

    #[differentiable(order = 2)]
    pub fn add(a: f64, b: f64) -> f64 {
        a + b
    }

    #[differentiable(order = 2)]
    pub fn saxpy_call(a: f64, b: f64, c: f64) -> f64 {
        add(mul(a, b), c)
    }

    #[differentiable]
    pub fn saxpy_anf(a: f64, b: f64, c: f64) -> f64 {
        let t1 = a * b;
        let t2 = t1 + c;
        t2
    }

    #[differentiable]
    pub fn saxpy_overwrite(a: f64, b: f64, c: f64) -> f64 {
        let mut t = a * b;
        t = t + c;
        t
    }

    /// Locals named like the generated items' parameters and the derivative of `a`.
    #[differentiable(order = 2)]
    pub fn gradname_aliasing(a: f64) -> f64 {
        let da = a * a;
        let d_ret = da + 1.0;
        let tangent = d_ret * a;
        let grad = tangent - a;
        let v = grad;
        v
    }

    #[differentiable(order = 2)]
    pub fn overwrite_if(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * 3.0;
        } else {
            a = a * 2.0;
        }
        a
    }

    #[differentiable]
    pub fn binop_mul1(a: f64) -> f64 {
        a * 3.0
    }

    #[differentiable]
    pub fn binop_mul2(a: f64) -> f64 {
        3.0 * a
    }

    #[differentiable(order = 2)]
    pub fn binop_mul3(a: f64) -> f64 {
        a * a
    }

    #[differentiable]
    pub fn binop_div1(a: f64) -> f64 {
        a / 3.0
    }

    #[differentiable(order = 2)]
    pub fn binop_div2(a: f64) -> f64 {
        3.0 / a
    }

    #[differentiable(order = 2)]
    pub fn binop_div3(a: f64) -> f64 {
        a / a
    }

    #[differentiable]
    pub fn binop_sub1(a: f64) -> f64 {
        a - 3.0
    }

    #[differentiable]
    pub fn binop_sub2(a: f64) -> f64 {
        3.0 - a
    }

    #[differentiable(order = 2)]
    pub fn binop_sub3(a: f64) -> f64 {
        a - a
    }

    #[differentiable]
    pub fn binop_add1(a: f64) -> f64 {
        a + 3.0
    }

    #[differentiable]
    pub fn binop_add2(a: f64) -> f64 {
        3.0 + a
    }

    #[differentiable(order = 2)]
    pub fn binop_add3(a: f64) -> f64 {
        a + a
    }

    #[differentiable(order = 2)]
    pub fn nested_if(mut a: f64) -> f64 {
        if a > 0.0 {
            if a < 10.0 {
                a = a * a;
            }
        } else {
            a = 3.0 * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn multiarg_if(mut a: f64) -> f64 {
        let b = if a * a / 3.0 > 0.0 { 3.0 } else { 4.0 };
        a = a * b;
        if a < b - a * b {
            a = a * a;
        } else if a > b + 3.0 * a {
            if a / 2.0 < 0.0 {
                a = a / b;
            } else {
                a = a * b;
            }
        } else {
            a = -a;
        }
        a
    }

    #[differentiable]
    pub fn fn_multiple_return(a: f64) -> (f64, f64) {
        (2.0 * a, a)
    }

    #[differentiable(order = 2)]
    pub fn anf_list(a: f64) -> f64 {
        let b = [1.0, a * a, 2.0];
        b.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn deep_anf_list(x: &[f64]) -> f64 {
        let b = [1.0, x[0] * x[1] * x[2], 3.0];
        b.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn subscript1(x: &[f64]) -> f64 {
        let a = x[0];
        let b = x[1];
        a * b
    }

    /// numpy's in-place write, on an array taken by value.
    #[differentiable(order = 2)]
    pub fn subscript2(mut x: [f64; 3]) -> f64 {
        let a = x[0];
        let b = x[1];
        x[0] = a * b;
        x.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn subscript3(mut x: [f64; 3]) -> f64 {
        let y = [x[0].powf(2.0), x[1].powf(2.0), x[2].powf(2.0)];
        x[0] = y[1] * y[2];
        x.iter().zip(y.iter()).map(|(a, b)| a * b).sum()
    }

    #[differentiable(order = 2)]
    pub fn list_and_subscript(a: f64) -> f64 {
        let x = [1.0, a, 3.0];
        x[0] * x[1]
    }

    #[differentiable(order = 2)]
    pub fn serial_if(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * a;
        }
        a = a + a;
        if a < 0.0 {
            a = 3.0 * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn multivar_if(mut a: f64, b: f64) -> f64 {
        if a > b {
            a = a * a;
        } else {
            a = a * b;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn serial_for(mut a: f64, n: usize) -> f64 {
        for _ in 0..n {
            a = a * a;
        }
        a = 2.0 * a;
        for _ in 0..n + 1 {
            a = a * 3.0;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn serial_ifthenfor(mut a: f64, n: usize) -> f64 {
        if a > 0.0 {
            a = a * a;
        }
        a = 2.0 * a;
        for _i in 0..n {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn serial_forthenif(mut a: f64, n: usize) -> f64 {
        for _i in 0..n {
            a = a * a;
        }
        a = 2.0 * a;
        if a > 0.0 {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn devilish_nested_if(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * 3.0;
            if a < 10.0 {
                a = a * a;
            } else {
                a = a * 2.0;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn overwrite_ifelse(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * 3.0;
        } else if 0.0 > a {
            a = a * 2.0;
        } else {
            a = 1.0 * a;
        }
        a
    }

    #[differentiable]
    pub fn overwrite_arg(mut a: f64) -> f64 {
        a = a * 3.0;
        a
    }

    #[differentiable]
    pub fn overwrite_non_arg(a: f64) -> f64 {
        let mut b = a;
        b = b * 3.0;
        b
    }

    #[differentiable(order = 2)]
    pub fn third_pow(a: f64) -> f64 {
        a * a * a
    }

    #[differentiable(order = 2)]
    pub fn direct_third_pow(a: f64) -> f64 {
        a.powi(3)
    }

    #[differentiable(order = 2)]
    pub fn iter_third_pow1(a: f64) -> f64 {
        let mut out = 1.0;
        for _ in 0..3 {
            out = out * a;
        }
        out
    }

    #[differentiable(order = 2)]
    pub fn iter_third_pow2(a: f64) -> f64 {
        let mut out = a;
        for _ in 0..3 - 1 {
            out = out * a;
        }
        out
    }

    #[differentiable(order = 2)]
    pub fn iterpower_static(mut a: f64) -> f64 {
        for _ in 0..3 {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn iterpower(mut a: f64, n: usize) -> f64 {
        for _ in 0..n {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn cond_iterpower1(mut a: f64) -> f64 {
        for _ in 0..3 {
            if a < 20.0 {
                a = a * a;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn cond_iterpower2(mut a: f64) -> f64 {
        if a < 20.0 {
            for _ in 0..3 {
                a = a * a;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn superfor_iterpower(mut a: f64) -> f64 {
        for _ in 0..2 {
            for _ in 0..3 {
                a = a * a;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn super_iterpower(mut a: f64) -> f64 {
        for _ in 0..3 {
            a = a * a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn numpy_mean(x: &[f64]) -> f64 {
        x.iter().sum::<f64>() / x.len() as f64
    }

    #[differentiable(order = 2)]
    pub fn numpy_exp2(a: f64) -> f64 {
        a.exp().exp()
    }

    #[differentiable(order = 2)]
    pub fn numpy_sqrt(a: f64) -> f64 {
        a.sqrt()
    }

    /// `label` is 0 or 1; `input · w + b` through `tanh`.
    #[differentiable(order = 2, wrt(w, b))]
    pub fn logistic_regression(input: &[f64], label: f64, w: &[f64], b: f64) -> f64 {
        let h1: f64 = input.iter().zip(w).map(|(i, w)| i * w).sum::<f64>() + b;
        let prediction = 0.5 * (h1.tanh() + 1.0);
        let label_probability = prediction * label + (1.0 - prediction) * (1.0 - label);
        -label_probability.ln()
    }

    #[differentiable(order = 2)]
    pub fn rsqrt(t: f64) -> f64 {
        1.0 / t.sqrt()
    }

    #[differentiable(order = 2)]
    pub fn squared_difference(t1: f64, t2: f64) -> f64 {
        (t1 - t2) * (t1 - t2)
    }

    #[differentiable(order = 2)]
    pub fn maximum(t1: f64, t2: f64) -> f64 {
        t1.max(t2)
    }

    fn inner_fn_plain(a: f64, b: f64) -> f64 {
        a * b
    }

    #[differentiable(order = 2)]
    pub fn inner_fn(a: f64, b: f64) -> f64 {
        a * b
    }

    #[differentiable(order = 2)]
    pub fn mul_with_call(a: f64, b: f64) -> f64 {
        inner_fn(a, b)
    }

    #[differentiable(order = 2)]
    pub fn if_mul_with_call(a: f64, b: f64) -> f64 {
        let o;
        if a > b {
            o = inner_fn(a, b);
        } else {
            o = inner_fn(b, a);
        }
        o
    }

    #[differentiable(order = 2)]
    pub fn iterpower_with_call(mut a: f64, n: usize) -> f64 {
        for _ in 0..n {
            a = inner_fn(a, a);
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn nested_call(a: f64, b: f64) -> f64 {
        mul_with_call(a, b)
    }

    #[differentiable(order = 2)]
    pub fn iterpower_with_nested_def(mut a: f64, n: usize) -> f64 {
        fn scaled(a: f64, n: f64) -> f64 {
            a * n
        }
        for _ in 0..n {
            a = scaled(a, a);
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn unpacking_args_saxpy(abc_packed_in_tuple: (f64, f64, f64)) -> f64 {
        let (a, b, c) = abc_packed_in_tuple;
        a * b + c
    }

    #[differentiable(order = 2)]
    pub fn passthru_pack(a: f64, b: f64, c: f64, i: usize) -> f64 {
        let x = [a, b, c];
        x[i]
    }

    #[differentiable(order = 2)]
    pub fn passthru_unpack(abc_packed_in_tuple: (f64, f64, f64)) -> f64 {
        let (a, _b, _c) = abc_packed_in_tuple;
        a
    }

    #[differentiable]
    pub fn cart2polar(a: f64, b: f64) -> (f64, f64) {
        let r = (a.powf(2.0) + b.powf(2.0)).sqrt();
        let theta = b.atan2(a);
        (r, theta)
    }

    #[differentiable(order = 2)]
    pub fn listcomp(a: &[f64]) -> f64 {
        a.iter().map(|i| i * 3.0).sum()
    }

    #[differentiable(order = 2)]
    pub fn while_big(mut a: f64) -> f64 {
        while a.abs() > 0.1 {
            a = a * 0.5;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn active_subscript(x: &[f64]) -> f64 {
        let mut y = vec![0.0; x.len()];
        for i in 0..x.len() {
            y[i] = x[i];
        }
        y.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn slicing(x: &[f64]) -> f64 {
        x[1..].iter().sum()
    }

    /// A three-step recurrence `h[t + 1] = inputs[t] · W + h[t]` over rows of a local nested array.
    #[differentiable(order = 2)]
    pub fn rnn(inputs: &[Vec<f64>], w: &[Vec<f64>]) -> f64 {
        let mut h = [[0.0; 3]; 4];
        for t in 0..3 {
            for j in 0..3 {
                let mut dot = 0.0;
                for k in 0..inputs[t].len() {
                    dot += inputs[t][k] * w[k][j];
                }
                h[t + 1][j] = dot + h[t][j];
            }
        }
        let mut s = 0.0;
        for t in 1..4 {
            for j in 0..3 {
                s += h[t][j];
            }
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn augassign(a: f64) -> f64 {
        let mut x = a * a;
        x *= x;
        x
    }

    /// `sum(tanh(x W + h U + b))` with `W`, `U` as `[[f64; 3]; 2]`.
    #[differentiable(order = 2)]
    pub fn bilinear(x: [f64; 2], h: [f64; 2], u: [[f64; 3]; 2], w: [[f64; 3]; 2], b: [f64; 3]) -> f64 {
        let mut y = [0.0; 3];
        for j in 0..3 {
            for i in 0..2 {
                y[j] += x[i] * w[i][j];
            }
        }
        for j in 0..3 {
            for i in 0..2 {
                y[j] = y[j] + h[i] * u[i][j];
            }
        }
        let mut s = 0.0;
        for j in 0..3 {
            y[j] = (y[j] + b[j]).tanh();
            s += y[j];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_pow(mut a: f64, b: f64) -> f64 {
        a = a.powf(b);
        a
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_pow_twice(mut a: f64) -> f64 {
        a = a * a;
        let y = a * a;
        y
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_chain_of_mults(a: f64) -> f64 {
        let b = a;
        let b = b * a;
        let c = b * b;
        let d = c * c;
        d
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_chain_of_multcalls(a: f64) -> f64 {
        let b = mul(a, a);
        let c = mul(b, b);
        let d = mul(c, c);
        d
    }

    #[differentiable(order = 2)]
    pub fn useless_stack_ops(a: f64) -> f64 {
        let _b = a * a;
        a
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Inner {
        pub j: f64,
        pub k: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Outer {
        pub i: Inner,
    }

    #[differentiable(order = 2)]
    pub fn nested_dict(p: &Outer) -> f64 {
        p.i.j * p.i.k
    }

    #[differentiable(order = 2)]
    pub fn extended_slice(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in (0..x.len()).step_by(2) {
            s += x[i];
        }
        s
    }

    pub fn plain_saxpy(a: f64, b: f64, c: f64) -> f64 {
        inner_fn_plain(a, b) + c
    }
}

use tangent_catalogue as tc;

#[test]
fn tangent_unary_catalogue() {
    let smooth = range(1, -2.0, 2.0);
    one("id_", tc::id_, tc::id__grad, tc::id__jvp, tc::id__grad_into)
        .hessian(hess1(tc::id__hessian, tc::id__derivatives))
        .analytic(|_| vec![1.0])
        .run(POINTS, &smooth);
    one("unary_sub", tc::unary_sub, tc::unary_sub_grad, tc::unary_sub_jvp, tc::unary_sub_grad_into)
        .hessian(hess1(tc::unary_sub_hessian, tc::unary_sub_derivatives))
        .analytic(|_| vec![-1.0])
        .run(POINTS, &smooth);
    one("tanh", tc::tanh, tc::tanh_grad, tc::tanh_jvp, tc::tanh_grad_into)
        .hessian(hess1(tc::tanh_hessian, tc::tanh_derivatives))
        .analytic(|x| vec![1.0 - x[0].tanh().powi(2)])
        .run(POINTS, &smooth);
    one("i_assign", tc::i_assign, tc::i_assign_grad, tc::i_assign_jvp, tc::i_assign_grad_into)
        .hessian(hess1(tc::i_assign_hessian, tc::i_assign_derivatives))
        .run(POINTS, &smooth);
    one("increment", tc::increment, tc::increment_grad, tc::increment_jvp, tc::increment_grad_into)
        .hessian(hess1(tc::increment_hessian, tc::increment_derivatives))
        .run(POINTS, &smooth);
    one(
        "gradname_aliasing",
        tc::gradname_aliasing,
        tc::gradname_aliasing_grad,
        tc::gradname_aliasing_jvp,
        tc::gradname_aliasing_grad_into,
    )
    .hessian(hess1(tc::gradname_aliasing_hessian, tc::gradname_aliasing_derivatives))
    .analytic(|x| vec![3.0 * x[0] * x[0]])
    .run(POINTS, &smooth);
    one("overwrite_if", tc::overwrite_if, tc::overwrite_if_grad, tc::overwrite_if_jvp, tc::overwrite_if_grad_into)
        .hessian(hess1(tc::overwrite_if_hessian, tc::overwrite_if_derivatives))
        .analytic(|x| vec![if x[0] > 0.0 { 3.0 } else { 2.0 }])
        .run(POINTS, &smooth);
    one("overwrite_arg", tc::overwrite_arg, tc::overwrite_arg_grad, tc::overwrite_arg_jvp, tc::overwrite_arg_grad_into)
        .analytic(|_| vec![3.0])
        .run(POINTS, &smooth);
    one(
        "overwrite_non_arg",
        tc::overwrite_non_arg,
        tc::overwrite_non_arg_grad,
        tc::overwrite_non_arg_jvp,
        tc::overwrite_non_arg_grad_into,
    )
    .analytic(|_| vec![3.0])
    .run(POINTS, &smooth);
    one("augassign", tc::augassign, tc::augassign_grad, tc::augassign_jvp, tc::augassign_grad_into)
        .hessian(hess1(tc::augassign_hessian, tc::augassign_derivatives))
        .analytic(|x| vec![4.0 * x[0].powi(3)])
        .run(POINTS, &smooth);
    one(
        "useless_stack_ops",
        tc::useless_stack_ops,
        tc::useless_stack_ops_grad,
        tc::useless_stack_ops_jvp,
        tc::useless_stack_ops_grad_into,
    )
    .hessian(hess1(tc::useless_stack_ops_hessian, tc::useless_stack_ops_derivatives))
    .analytic(|_| vec![1.0])
    .run(POINTS, &smooth);
    one("numpy_exp2", tc::numpy_exp2, tc::numpy_exp2_grad, tc::numpy_exp2_jvp, tc::numpy_exp2_grad_into)
        .hessian(hess1(tc::numpy_exp2_hessian, tc::numpy_exp2_derivatives))
        .analytic(|x| vec![x[0].exp().exp() * x[0].exp()])
        .run(POINTS, &smooth);
    let positive = range(1, 0.1, 4.0);
    one("numpy_sqrt", tc::numpy_sqrt, tc::numpy_sqrt_grad, tc::numpy_sqrt_jvp, tc::numpy_sqrt_grad_into)
        .hessian(hess1(tc::numpy_sqrt_hessian, tc::numpy_sqrt_derivatives))
        .analytic(|x| vec![0.5 / x[0].sqrt()])
        .run(POINTS, &positive);
    one("rsqrt", tc::rsqrt, tc::rsqrt_grad, tc::rsqrt_jvp, tc::rsqrt_grad_into)
        .hessian(hess1(tc::rsqrt_hessian, tc::rsqrt_derivatives))
        .analytic(|x| vec![-0.5 * x[0].powf(-1.5)])
        .run(POINTS, &positive);
}

#[test]
fn tangent_binop_catalogue() {
    let xs = away_from(1, -3.0, 3.0, 100.0, 0.0);
    type Item = (&'static str, fn(f64) -> f64, fn(f64) -> (f64, f64), fn(f64, f64) -> (f64, f64), fn(f64, &mut f64) -> f64, fn(f64) -> f64);
    let table: [Item; 12] = [
        ("binop_mul1", tc::binop_mul1, tc::binop_mul1_grad, tc::binop_mul1_jvp, tc::binop_mul1_grad_into, |_| 3.0),
        ("binop_mul2", tc::binop_mul2, tc::binop_mul2_grad, tc::binop_mul2_jvp, tc::binop_mul2_grad_into, |_| 3.0),
        ("binop_mul3", tc::binop_mul3, tc::binop_mul3_grad, tc::binop_mul3_jvp, tc::binop_mul3_grad_into, |a| 2.0 * a),
        ("binop_div1", tc::binop_div1, tc::binop_div1_grad, tc::binop_div1_jvp, tc::binop_div1_grad_into, |_| 1.0 / 3.0),
        ("binop_div2", tc::binop_div2, tc::binop_div2_grad, tc::binop_div2_jvp, tc::binop_div2_grad_into, |a| -3.0 / (a * a)),
        ("binop_div3", tc::binop_div3, tc::binop_div3_grad, tc::binop_div3_jvp, tc::binop_div3_grad_into, |_| 0.0),
        ("binop_sub1", tc::binop_sub1, tc::binop_sub1_grad, tc::binop_sub1_jvp, tc::binop_sub1_grad_into, |_| 1.0),
        ("binop_sub2", tc::binop_sub2, tc::binop_sub2_grad, tc::binop_sub2_jvp, tc::binop_sub2_grad_into, |_| -1.0),
        ("binop_sub3", tc::binop_sub3, tc::binop_sub3_grad, tc::binop_sub3_jvp, tc::binop_sub3_grad_into, |_| 0.0),
        ("binop_add1", tc::binop_add1, tc::binop_add1_grad, tc::binop_add1_jvp, tc::binop_add1_grad_into, |_| 1.0),
        ("binop_add2", tc::binop_add2, tc::binop_add2_grad, tc::binop_add2_jvp, tc::binop_add2_grad_into, |_| 1.0),
        ("binop_add3", tc::binop_add3, tc::binop_add3_grad, tc::binop_add3_jvp, tc::binop_add3_grad_into, |_| 2.0),
    ];
    for (name, f, g, j, gi, d) in table {
        let sample = |r: &mut Lcg| loop {
            let x = xs(r);
            if x[0].abs() > 0.2 {
                break x;
            }
        };
        one(name, f, g, j, gi).analytic(move |x| vec![d(x[0])]).run(POINTS, sample);
    }
    for (name, h) in [
        ("binop_mul3", hess1(tc::binop_mul3_hessian, tc::binop_mul3_derivatives)),
        ("binop_div2", hess1(tc::binop_div2_hessian, tc::binop_div2_derivatives)),
        ("binop_div3", hess1(tc::binop_div3_hessian, tc::binop_div3_derivatives)),
        ("binop_sub3", hess1(tc::binop_sub3_hessian, tc::binop_sub3_derivatives)),
        ("binop_add3", hess1(tc::binop_add3_hessian, tc::binop_add3_derivatives)),
    ] {
        let (v, g, hh) = h(&[1.7]);
        let expected = match name {
            "binop_mul3" => (1.7 * 1.7, 3.4, 2.0),
            "binop_div2" => (3.0 / 1.7, -3.0 / (1.7 * 1.7), 6.0 / (1.7 * 1.7 * 1.7)),
            "binop_div3" => (1.0, 0.0, 0.0),
            "binop_sub3" => (0.0, 0.0, 0.0),
            _ => (3.4, 2.0, 0.0),
        };
        assert_near(v, expected.0, 1e-12, 0.0, name);
        assert_near(g[0], expected.1, 1e-12, 0.0, name);
        assert_near(hh[0][0], expected.2, 1e-12, 0.0, name);
    }
}

#[test]
fn tangent_branches() {
    // Away from the branch points 0 and 10/3 (devilish) and the kinks of multiarg_if.
    let xs = away_from(1, -5.0, 5.0, 10.0 / 3.0, 0.0);
    one("nested_if", tc::nested_if, tc::nested_if_grad, tc::nested_if_jvp, tc::nested_if_grad_into)
        .hessian(hess1(tc::nested_if_hessian, tc::nested_if_derivatives))
        .analytic(|x| {
            let a = x[0];
            vec![if a > 0.0 && a < 10.0 { 2.0 * a } else if a > 0.0 { 1.0 } else { 3.0 }]
        })
        .run(POINTS, &xs);
    one("multiarg_if", tc::multiarg_if, tc::multiarg_if_grad, tc::multiarg_if_jvp, tc::multiarg_if_grad_into)
        .hessian(hess1(tc::multiarg_if_hessian, tc::multiarg_if_derivatives))
        .run(POINTS, away_from(1, -5.0, 5.0, 0.5, 0.25));
    one("serial_if", tc::serial_if, tc::serial_if_grad, tc::serial_if_jvp, tc::serial_if_grad_into)
        .hessian(hess1(tc::serial_if_hessian, tc::serial_if_derivatives))
        .analytic(|x| vec![if x[0] > 0.0 { 4.0 * x[0] } else { 6.0 }])
        .run(POINTS, &xs);
    one(
        "devilish_nested_if",
        tc::devilish_nested_if,
        tc::devilish_nested_if_grad,
        tc::devilish_nested_if_jvp,
        tc::devilish_nested_if_grad_into,
    )
    .hessian(hess1(tc::devilish_nested_if_hessian, tc::devilish_nested_if_derivatives))
    .analytic(|x| {
        let a = x[0];
        vec![if a <= 0.0 { 1.0 } else if 3.0 * a < 10.0 { 18.0 * a } else { 6.0 }]
    })
    .run(POINTS, &xs);
    one(
        "overwrite_ifelse",
        tc::overwrite_ifelse,
        tc::overwrite_ifelse_grad,
        tc::overwrite_ifelse_jvp,
        tc::overwrite_ifelse_grad_into,
    )
    .hessian(hess1(tc::overwrite_ifelse_hessian, tc::overwrite_ifelse_derivatives))
    .analytic(|x| vec![if x[0] > 0.0 { 3.0 } else { 2.0 }])
    .run(POINTS, &xs);
    assert_eq!(tc::overwrite_ifelse_grad(0.0), (0.0, 1.0));
    let pairs = range(2, -3.0, 3.0);
    let apart = |r: &mut Lcg| loop {
        let x = pairs(r);
        if (x[0] - x[1]).abs() > 0.05 {
            break x;
        }
    };
    two("multivar_if", tc::multivar_if, tc::multivar_if_grad, tc::multivar_if_jvp, tc::multivar_if_grad_into)
        .hessian(hess2(tc::multivar_if_hessian))
        .analytic(|x| if x[0] > x[1] { vec![2.0 * x[0], 0.0] } else { vec![x[1], x[0]] })
        .run(POINTS, apart);
    two(
        "if_mul_with_call",
        tc::if_mul_with_call,
        tc::if_mul_with_call_grad,
        tc::if_mul_with_call_jvp,
        tc::if_mul_with_call_grad_into,
    )
    .hessian(hess2(tc::if_mul_with_call_hessian))
    .analytic(|x| vec![x[1], x[0]])
    .run(POINTS, apart);
    two("maximum", tc::maximum, tc::maximum_grad, tc::maximum_jvp, tc::maximum_grad_into)
        .hessian(hess2(tc::maximum_hessian))
        .analytic(|x| if x[0] > x[1] { vec![1.0, 0.0] } else { vec![0.0, 1.0] })
        .run(POINTS, apart);
    // JAX: a tie of max gives half to each side.
    assert_eq!(tc::maximum_grad(1.5, 1.5), (1.5, (0.5, 0.5)));
}

#[test]
fn tangent_loops() {
    let small = range(1, 0.5, 1.3);
    let pow8 = |a: f64| a.powi(8);
    one(
        "iterpower_static",
        tc::iterpower_static,
        tc::iterpower_static_grad,
        tc::iterpower_static_jvp,
        tc::iterpower_static_grad_into,
    )
    .hessian(hess1(tc::iterpower_static_hessian, tc::iterpower_static_derivatives))
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &small);
    assert_near(tc::iterpower_static(1.1), pow8(1.1), 1e-14, 0.0, "iterpower_static");
    one(
        "iterpower",
        |a| tc::iterpower(a, 3),
        |a| tc::iterpower_grad(a, 3),
        |a, t| tc::iterpower_jvp(a, 3, t),
        |a, g| tc::iterpower_grad_into(a, 3, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::iterpower_hessian(x[0], 3);
        (v, vec![g], h)
    })
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &small);
    for n in 0..4 {
        let d = tc::iterpower_derivatives(1.2, n);
        let p = 1 << n;
        assert_near(d[0], 1.2f64.powi(p), 1e-13, 0.0, "iterpower_derivatives[0]");
        assert_near(d[1], p as f64 * 1.2f64.powi(p - 1), 1e-13, 0.0, "iterpower_derivatives[1]");
        let second = if p > 1 { (p * (p - 1)) as f64 * 1.2f64.powi(p - 2) } else { 0.0 };
        assert_near(d[2], second, 1e-13, 0.0, "iterpower_derivatives[2]");
    }
    one(
        "serial_for",
        |a| tc::serial_for(a, 2),
        |a| tc::serial_for_grad(a, 2),
        |a, t| tc::serial_for_jvp(a, 2, t),
        |a, g| tc::serial_for_grad_into(a, 2, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::serial_for_hessian(x[0], 2);
        (v, vec![g], h)
    })
    .analytic(|x| vec![2.0 * 27.0 * 4.0 * x[0].powi(3)])
    .run(POINTS, range(1, -1.3, 1.3));
    one(
        "serial_ifthenfor",
        |a| tc::serial_ifthenfor(a, 2),
        |a| tc::serial_ifthenfor_grad(a, 2),
        |a, t| tc::serial_ifthenfor_jvp(a, 2, t),
        |a, g| tc::serial_ifthenfor_grad_into(a, 2, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::serial_ifthenfor_hessian(x[0], 2);
        (v, vec![g], h)
    })
    .run(POINTS, away_from(1, -1.3, 1.3, 10.0, 0.0));
    one(
        "serial_forthenif",
        |a| tc::serial_forthenif(a, 2),
        |a| tc::serial_forthenif_grad(a, 2),
        |a, t| tc::serial_forthenif_jvp(a, 2, t),
        |a, g| tc::serial_forthenif_grad_into(a, 2, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::serial_forthenif_hessian(x[0], 2);
        (v, vec![g], h)
    })
    .analytic(|x| vec![32.0 * x[0].powi(7)])
    .run(POINTS, away_from(1, -1.3, 1.3, 10.0, 0.0));
    let cube = range(1, -1.5, 1.5);
    for (name, f, g, j, gi, h) in [
        (
            "third_pow",
            tc::third_pow as fn(f64) -> f64,
            tc::third_pow_grad as fn(f64) -> (f64, f64),
            tc::third_pow_jvp as fn(f64, f64) -> (f64, f64),
            tc::third_pow_grad_into as fn(f64, &mut f64) -> f64,
            hess1(tc::third_pow_hessian, tc::third_pow_derivatives),
        ),
        (
            "direct_third_pow",
            tc::direct_third_pow,
            tc::direct_third_pow_grad,
            tc::direct_third_pow_jvp,
            tc::direct_third_pow_grad_into,
            hess1(tc::direct_third_pow_hessian, tc::direct_third_pow_derivatives),
        ),
        (
            "iter_third_pow1",
            tc::iter_third_pow1,
            tc::iter_third_pow1_grad,
            tc::iter_third_pow1_jvp,
            tc::iter_third_pow1_grad_into,
            hess1(tc::iter_third_pow1_hessian, tc::iter_third_pow1_derivatives),
        ),
        (
            "iter_third_pow2",
            tc::iter_third_pow2,
            tc::iter_third_pow2_grad,
            tc::iter_third_pow2_jvp,
            tc::iter_third_pow2_grad_into,
            hess1(tc::iter_third_pow2_hessian, tc::iter_third_pow2_derivatives),
        ),
    ] {
        one(name, f, g, j, gi)
            .hessian(h)
            .analytic(|x| vec![3.0 * x[0] * x[0]])
            .run(POINTS, &cube);
    }
    one(
        "cond_iterpower1",
        tc::cond_iterpower1,
        tc::cond_iterpower1_grad,
        tc::cond_iterpower1_jvp,
        tc::cond_iterpower1_grad_into,
    )
    .hessian(hess1(tc::cond_iterpower1_hessian, tc::cond_iterpower1_derivatives))
    .run(POINTS, away_from(1, 0.5, 3.0, 100.0, 20.0f64.sqrt().sqrt()));
    one(
        "cond_iterpower2",
        tc::cond_iterpower2,
        tc::cond_iterpower2_grad,
        tc::cond_iterpower2_jvp,
        tc::cond_iterpower2_grad_into,
    )
    .hessian(hess1(tc::cond_iterpower2_hessian, tc::cond_iterpower2_derivatives))
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &small);
    one(
        "superfor_iterpower",
        tc::superfor_iterpower,
        tc::superfor_iterpower_grad,
        tc::superfor_iterpower_jvp,
        tc::superfor_iterpower_grad_into,
    )
    .hessian(hess1(tc::superfor_iterpower_hessian, tc::superfor_iterpower_derivatives))
    .analytic(|x| vec![64.0 * x[0].powi(63)])
    .run(POINTS, range(1, 0.9, 1.05));
    one(
        "super_iterpower",
        tc::super_iterpower,
        tc::super_iterpower_grad,
        tc::super_iterpower_jvp,
        tc::super_iterpower_grad_into,
    )
    .hessian(hess1(tc::super_iterpower_hessian, tc::super_iterpower_derivatives))
    .analytic(|x| vec![27.0 * x[0].powi(26)])
    .run(POINTS, range(1, 0.8, 1.1));
    one("while_big", tc::while_big, tc::while_big_grad, tc::while_big_jvp, tc::while_big_grad_into)
        .hessian(hess1(tc::while_big_hessian, tc::while_big_derivatives))
        .run(POINTS, away_from(1, -3.0, 3.0, 0.1, 0.0));
    assert_eq!(tc::while_big_grad(0.8), (0.1, 0.125));
    let cases = range(1, 0.5, 1.2);
    one(
        "iterpower_with_call",
        |a| tc::iterpower_with_call(a, 3),
        |a| tc::iterpower_with_call_grad(a, 3),
        |a, t| tc::iterpower_with_call_jvp(a, 3, t),
        |a, g| tc::iterpower_with_call_grad_into(a, 3, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::iterpower_with_call_hessian(x[0], 3);
        (v, vec![g], h)
    })
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &cases);
    one(
        "iterpower_with_nested_def",
        |a| tc::iterpower_with_nested_def(a, 3),
        |a| tc::iterpower_with_nested_def_grad(a, 3),
        |a, t| tc::iterpower_with_nested_def_jvp(a, 3, t),
        |a, g| tc::iterpower_with_nested_def_grad_into(a, 3, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::iterpower_with_nested_def_hessian(x[0], 3);
        (v, vec![g], h)
    })
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &cases);
    one(
        "gradgrad_pow_twice",
        tc::gradgrad_pow_twice,
        tc::gradgrad_pow_twice_grad,
        tc::gradgrad_pow_twice_jvp,
        tc::gradgrad_pow_twice_grad_into,
    )
    .hessian(hess1(tc::gradgrad_pow_twice_hessian, tc::gradgrad_pow_twice_derivatives))
    .analytic(|x| vec![4.0 * x[0].powi(3)])
    .run(POINTS, range(1, -2.0, 2.0));
    for (name, f, g, j, gi, h) in [
        (
            "gradgrad_chain_of_mults",
            tc::gradgrad_chain_of_mults as fn(f64) -> f64,
            tc::gradgrad_chain_of_mults_grad as fn(f64) -> (f64, f64),
            tc::gradgrad_chain_of_mults_jvp as fn(f64, f64) -> (f64, f64),
            tc::gradgrad_chain_of_mults_grad_into as fn(f64, &mut f64) -> f64,
            hess1(tc::gradgrad_chain_of_mults_hessian, tc::gradgrad_chain_of_mults_derivatives),
        ),
        (
            "gradgrad_chain_of_multcalls",
            tc::gradgrad_chain_of_multcalls,
            tc::gradgrad_chain_of_multcalls_grad,
            tc::gradgrad_chain_of_multcalls_jvp,
            tc::gradgrad_chain_of_multcalls_grad_into,
            hess1(tc::gradgrad_chain_of_multcalls_hessian, tc::gradgrad_chain_of_multcalls_derivatives),
        ),
    ] {
        one(name, f, g, j, gi)
            .hessian(h)
            .analytic(|x| vec![8.0 * x[0].powi(7)])
            .run(POINTS, range(1, -1.2, 1.2));
    }
}

#[test]
fn tangent_several_scalars() {
    let xs = range(3, -2.0, 2.0);
    for (name, f, g, j, gi) in [
        (
            "saxpy",
            tc::saxpy as fn(f64, f64, f64) -> f64,
            tc::saxpy_grad as fn(f64, f64, f64) -> (f64, Three),
            tc::saxpy_jvp as fn(f64, f64, f64, Three) -> (f64, f64),
            tc::saxpy_grad_into as fn(f64, f64, f64, (&mut f64, &mut f64, &mut f64)) -> f64,
        ),
        ("saxpy_call", tc::saxpy_call, tc::saxpy_call_grad, tc::saxpy_call_jvp, tc::saxpy_call_grad_into),
        ("saxpy_anf", tc::saxpy_anf, tc::saxpy_anf_grad, tc::saxpy_anf_jvp, tc::saxpy_anf_grad_into),
        (
            "saxpy_overwrite",
            tc::saxpy_overwrite,
            tc::saxpy_overwrite_grad,
            tc::saxpy_overwrite_jvp,
            tc::saxpy_overwrite_grad_into,
        ),
    ] {
        let p = three(name, f, g, j, gi).analytic(|x| vec![x[1], x[0], 1.0]);
        let p = match name {
            "saxpy" => p.hessian(hess3(tc::saxpy_hessian)),
            "saxpy_call" => p.hessian(hess3(tc::saxpy_call_hessian)),
            _ => p,
        };
        p.run(POINTS, &xs);
        assert_near(f(1.0, 2.0, 3.0), tc::plain_saxpy(1.0, 2.0, 3.0), 0.0, 0.0, name);
    }
    let pairs = range(2, -2.0, 2.0);
    for (name, f, g, j, gi, h) in [
        (
            "mul",
            tc::mul as fn(f64, f64) -> f64,
            tc::mul_grad as fn(f64, f64) -> (f64, Two),
            tc::mul_jvp as fn(f64, f64, Two) -> (f64, f64),
            tc::mul_grad_into as fn(f64, f64, (&mut f64, &mut f64)) -> f64,
            hess2(tc::mul_hessian),
        ),
        ("inner_fn", tc::inner_fn, tc::inner_fn_grad, tc::inner_fn_jvp, tc::inner_fn_grad_into, hess2(tc::inner_fn_hessian)),
        (
            "mul_with_call",
            tc::mul_with_call,
            tc::mul_with_call_grad,
            tc::mul_with_call_jvp,
            tc::mul_with_call_grad_into,
            hess2(tc::mul_with_call_hessian),
        ),
        (
            "nested_call",
            tc::nested_call,
            tc::nested_call_grad,
            tc::nested_call_jvp,
            tc::nested_call_grad_into,
            hess2(tc::nested_call_hessian),
        ),
    ] {
        two(name, f, g, j, gi)
            .hessian(h)
            .analytic(|x| vec![x[1], x[0]])
            .run(POINTS, &pairs);
    }
    two("add", tc::add, tc::add_grad, tc::add_jvp, tc::add_grad_into)
        .hessian(hess2(tc::add_hessian))
        .analytic(|_| vec![1.0, 1.0])
        .run(POINTS, &pairs);
    two(
        "squared_difference",
        tc::squared_difference,
        tc::squared_difference_grad,
        tc::squared_difference_jvp,
        tc::squared_difference_grad_into,
    )
    .hessian(hess2(tc::squared_difference_hessian))
    .analytic(|x| vec![2.0 * (x[0] - x[1]), -2.0 * (x[0] - x[1])])
    .run(POINTS, &pairs);
    two("gradgrad_pow", tc::gradgrad_pow, tc::gradgrad_pow_grad, tc::gradgrad_pow_jvp, tc::gradgrad_pow_grad_into)
        .hessian(hess2(tc::gradgrad_pow_hessian))
        .analytic(|x| vec![x[1] * x[0].powf(x[1] - 1.0), x[0].powf(x[1]) * x[0].ln()])
        .run(POINTS, |r| vec![r.uniform(0.2, 3.0), r.uniform(-2.0, 2.0)]);
    // A tuple parameter, and an array built of three active scalars indexed by an integer.
    Probe::new("unpacking_args_saxpy", |x| tc::unpacking_args_saxpy((x[0], x[1], x[2])))
        .grad(|x| {
            let (v, g) = tc::unpacking_args_saxpy_grad((x[0], x[1], x[2]));
            (v, vec![g.0, g.1, g.2])
        })
        .jvp(|x, t| tc::unpacking_args_saxpy_jvp((x[0], x[1], x[2]), (t[0], t[1], t[2])))
        .grad_into(|x| {
            let mut g = (GARBAGE, GARBAGE, GARBAGE);
            let v = tc::unpacking_args_saxpy_grad_into((x[0], x[1], x[2]), &mut g);
            (v, vec![g.0, g.1, g.2])
        })
        .hessian(|x| {
            let (v, g, h) = tc::unpacking_args_saxpy_hessian((x[0], x[1], x[2]));
            (v, vec![g.0, g.1, g.2], h)
        })
        .analytic(|x| vec![x[1], x[0], 1.0])
        .run(POINTS, &xs);
    Probe::new("passthru_unpack", |x| tc::passthru_unpack((x[0], x[1], x[2])))
        .grad(|x| {
            let (v, g) = tc::passthru_unpack_grad((x[0], x[1], x[2]));
            (v, vec![g.0, g.1, g.2])
        })
        .hessian(|x| {
            let (v, g, h) = tc::passthru_unpack_hessian((x[0], x[1], x[2]));
            (v, vec![g.0, g.1, g.2], h)
        })
        .analytic(|_| vec![1.0, 0.0, 0.0])
        .run(POINTS, &xs);
    for i in 0..3 {
        let (v, g) = tc::passthru_pack_grad(1.0, 2.0, 3.0, i);
        assert_eq!(v, [1.0, 2.0, 3.0][i]);
        let mut expected = (0.0, 0.0, 0.0);
        match i {
            0 => expected.0 = 1.0,
            1 => expected.1 = 1.0,
            _ => expected.2 = 1.0,
        }
        assert_eq!(g, expected, "passthru_pack, i = {i}");
        let (_, gh, h) = tc::passthru_pack_hessian(1.0, 2.0, 3.0, i);
        assert_eq!(gh, expected);
        assert_eq!(h, vec![vec![0.0; 3]; 3]);
    }
    one(
        "list_and_subscript",
        tc::list_and_subscript,
        tc::list_and_subscript_grad,
        tc::list_and_subscript_jvp,
        tc::list_and_subscript_grad_into,
    )
    .hessian(hess1(tc::list_and_subscript_hessian, tc::list_and_subscript_derivatives))
    .analytic(|_| vec![1.0])
    .run(POINTS, range(1, -2.0, 2.0));
    one("anf_list", tc::anf_list, tc::anf_list_grad, tc::anf_list_jvp, tc::anf_list_grad_into)
        .hessian(hess1(tc::anf_list_hessian, tc::anf_list_derivatives))
        .analytic(|x| vec![2.0 * x[0]])
        .run(POINTS, range(1, -2.0, 2.0));
}

#[test]
fn tangent_tuple_outputs() {
    let mut rng = Lcg::new(7);
    for _ in 0..POINTS {
        let (a, b) = (rng.uniform(0.2, 2.0), rng.uniform(-2.0, 2.0));
        let (ca, cb) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        // cotangent · (r, theta) as a scalar function of (a, b), by central differences.
        let scalar = |x: &[f64]| {
            let (r, t) = tc::cart2polar(x[0], x[1]);
            ca * r + cb * t
        };
        let fd = fd_gradient(&scalar, &[a, b]);
        let (value, g) = tc::cart2polar_vjp(a, b, (ca, cb));
        assert_eq!(value, tc::cart2polar(a, b));
        assert_vec_near(&[g.0, g.1], &fd, 1e-6, "cart2polar_vjp");
        let r = a.hypot(b);
        let analytic = [ca * a / r - cb * b / (r * r), ca * b / r + cb * a / (r * r)];
        assert_vec_near(&[g.0, g.1], &analytic, 1e-9, "cart2polar_vjp against the formula");
        let (ta, tb) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let (_, (dr, dt)) = tc::cart2polar_jvp(a, b, (ta, tb));
        assert_near(dr, (a * ta + b * tb) / r, 1e-9, 1.0, "cart2polar_jvp r");
        assert_near(dt, (a * tb - b * ta) / (r * r), 1e-9, 1.0, "cart2polar_jvp theta");

        let (_, g) = tc::fn_multiple_return_vjp(a, (ca, cb));
        assert_near(g, 2.0 * ca + cb, 1e-14, 0.0, "fn_multiple_return_vjp");
        let (_, t) = tc::fn_multiple_return_jvp(a, ta);
        assert_eq!(t, (2.0 * ta, ta));
    }
}

#[test]
fn tangent_slices() {
    let v3 = range(3, -2.0, 2.0);
    let v5 = range(5, -2.0, 2.0);
    slice("sum_", tc::sum_, tc::sum__grad, tc::sum__jvp, tc::sum__grad_into)
        .hessian(hess_slice(tc::sum__hessian))
        .analytic(|x| vec![1.0; x.len()])
        .run(POINTS, &v5);
    slice("overwrite_call", tc::overwrite_call, tc::overwrite_call_grad, tc::overwrite_call_jvp, tc::overwrite_call_grad_into)
        .hessian(hess_slice(tc::overwrite_call_hessian))
        .analytic(|x| vec![2.0 * x.iter().sum::<f64>(); x.len()])
        .run(POINTS, &v5);
    slice("deep_anf_list", tc::deep_anf_list, tc::deep_anf_list_grad, tc::deep_anf_list_jvp, tc::deep_anf_list_grad_into)
        .hessian(hess_slice(tc::deep_anf_list_hessian))
        .analytic(|x| vec![x[1] * x[2], x[0] * x[2], x[0] * x[1]])
        .run(POINTS, &v3);
    slice("subscript1", tc::subscript1, tc::subscript1_grad, tc::subscript1_jvp, tc::subscript1_grad_into)
        .hessian(hess_slice(tc::subscript1_hessian))
        .analytic(|x| vec![x[1], x[0], 0.0])
        .run(POINTS, &v3);
    slice("numpy_mean", tc::numpy_mean, tc::numpy_mean_grad, tc::numpy_mean_jvp, tc::numpy_mean_grad_into)
        .hessian(hess_slice(tc::numpy_mean_hessian))
        .analytic(|x| vec![1.0 / x.len() as f64; x.len()])
        .run(POINTS, &v5);
    slice("listcomp", tc::listcomp, tc::listcomp_grad, tc::listcomp_jvp, tc::listcomp_grad_into)
        .hessian(hess_slice(tc::listcomp_hessian))
        .analytic(|x| vec![3.0; x.len()])
        .run(POINTS, &v5);
    slice(
        "active_subscript",
        tc::active_subscript,
        tc::active_subscript_grad,
        tc::active_subscript_jvp,
        tc::active_subscript_grad_into,
    )
    .hessian(hess_slice(tc::active_subscript_hessian))
    .analytic(|x| vec![1.0; x.len()])
    .run(POINTS, &v5);
    slice("slicing", tc::slicing, tc::slicing_grad, tc::slicing_jvp, tc::slicing_grad_into)
        .hessian(hess_slice(tc::slicing_hessian))
        .analytic(|x| {
            let mut g = vec![1.0; x.len()];
            g[0] = 0.0;
            g
        })
        .run(POINTS, &v5);
    slice("extended_slice", tc::extended_slice, tc::extended_slice_grad, tc::extended_slice_jvp, tc::extended_slice_grad_into)
        .hessian(hess_slice(tc::extended_slice_hessian))
        .analytic(|x| (0..x.len()).map(|i| if i % 2 == 0 { 1.0 } else { 0.0 }).collect())
        .run(POINTS, &v5);
    // Arrays taken by value and written.
    let arr = |x: &[f64]| [x[0], x[1], x[2]];
    Probe::new("subscript2", move |x| tc::subscript2(arr(x)))
        .grad(move |x| {
            let (v, g) = tc::subscript2_grad(arr(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| tc::subscript2_jvp(arr(x), arr(t)))
        .grad_into(move |x| {
            let mut g = [GARBAGE; 3];
            let v = tc::subscript2_grad_into(arr(x), &mut g);
            (v, g.to_vec())
        })
        .hessian(move |x| {
            let (v, g, h) = tc::subscript2_hessian(arr(x));
            (v, g.to_vec(), h)
        })
        .analytic(|x| vec![x[1], x[0] + 1.0, 1.0])
        .run(POINTS, &v3);
    Probe::new("subscript3", move |x| tc::subscript3(arr(x)))
        .grad(move |x| {
            let (v, g) = tc::subscript3_grad(arr(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| tc::subscript3_jvp(arr(x), arr(t)))
        .grad_into(move |x| {
            let mut g = [GARBAGE; 3];
            let v = tc::subscript3_grad_into(arr(x), &mut g);
            (v, g.to_vec())
        })
        .hessian(move |x| {
            let (v, g, h) = tc::subscript3_hessian(arr(x));
            (v, g.to_vec(), h)
        })
        .run(POINTS, range(3, 0.2, 2.0));
    // logistic regression: wrt(w, b), with the input and the label constants.
    let input = [0.3, -1.2, 0.8];
    for label in [0.0, 1.0] {
        Probe::new("logistic_regression", move |x| tc::logistic_regression(&input, label, &x[..3], x[3]))
            .grad(move |x| {
                let (v, (gw, gb)) = tc::logistic_regression_grad(&input, label, &x[..3], x[3]);
                let mut g = gw;
                g.push(gb);
                (v, g)
            })
            .jvp(move |x, t| tc::logistic_regression_jvp(&input, label, &x[..3], x[3], (t[..3].to_vec(), t[3])))
            .grad_into(move |x| {
                let mut gw = [GARBAGE; 3];
                let mut gb = GARBAGE;
                let v = tc::logistic_regression_grad_into(&input, label, &x[..3], x[3], (&mut gw, &mut gb));
                (v, vec![gw[0], gw[1], gw[2], gb])
            })
            .hessian(move |x| {
                let (v, (gw, gb), h) = tc::logistic_regression_hessian(&input, label, &x[..3], x[3]);
                let mut g = gw;
                g.push(gb);
                (v, g, h)
            })
            .analytic(move |x| {
                let h1: f64 = input.iter().zip(&x[..3]).map(|(i, w)| i * w).sum::<f64>() + x[3];
                let t = h1.tanh();
                let p = 0.5 * (t + 1.0);
                let dp = 0.5 * (1.0 - t * t);
                let dl = if label == 1.0 { -dp / p } else { dp / (1.0 - p) };
                vec![dl * input[0], dl * input[1], dl * input[2], dl]
            })
            .run(POINTS, range(4, -1.0, 1.0));
    }
    // The nested struct (tangent's nested dict).
    let outer = |x: &[f64]| tc::Outer { i: tc::Inner { j: x[0], k: x[1] } };
    Probe::new("nested_dict", move |x| tc::nested_dict(&outer(x)))
        .grad(move |x| {
            let (v, g) = tc::nested_dict_grad(&outer(x));
            (v, vec![g.i.j, g.i.k])
        })
        .jvp(move |x, t| tc::nested_dict_jvp(&outer(x), outer(t)))
        .hessian(move |x| {
            let (v, g, h) = tc::nested_dict_hessian(&outer(x));
            (v, g.to_flat(), h)
        })
        .analytic(|x| vec![x[1], x[0]])
        .run(POINTS, range(2, -2.0, 2.0));
}

fn rows(x: &[f64], n: usize, m: usize) -> Vec<Vec<f64>> {
    (0..n).map(|i| x[i * m..(i + 1) * m].to_vec()).collect()
}

fn flatten(m: &[Vec<f64>]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

#[test]
fn tangent_matrices() {
    // rnn: inputs 3x2, W 2x3, flattened (inputs, W).
    let split = |x: &[f64]| (rows(&x[..6], 3, 2), rows(&x[6..], 2, 3));
    Probe::new("rnn", move |x| {
        let (i, w) = split(x);
        tc::rnn(&i, &w)
    })
    .grad(move |x| {
        let (i, w) = split(x);
        let (v, (gi, gw)) = tc::rnn_grad(&i, &w);
        let mut g = flatten(&gi);
        g.extend(flatten(&gw));
        (v, g)
    })
    .jvp(move |x, t| {
        let (i, w) = split(x);
        let (ti, tw) = split(t);
        tc::rnn_jvp(&i, &w, (ti, tw))
    })
    .hessian(move |x| {
        let (i, w) = split(x);
        let (v, (gi, gw), h) = tc::rnn_hessian(&i, &w);
        let mut g = flatten(&gi);
        g.extend(flatten(&gw));
        (v, g, h)
    })
    .run(POINTS, range(12, -1.0, 1.0));
    // bilinear: x[2], h[2], U[2][3], W[2][3], b[3]: 2 + 2 + 6 + 6 + 3 = 19 inputs.
    type Args = ([f64; 2], [f64; 2], [[f64; 3]; 2], [[f64; 3]; 2], [f64; 3]);
    fn args(x: &[f64]) -> Args {
        let m = |o: usize| [[x[o], x[o + 1], x[o + 2]], [x[o + 3], x[o + 4], x[o + 5]]];
        ([x[0], x[1]], [x[2], x[3]], m(4), m(10), [x[16], x[17], x[18]])
    }
    fn flat(g: Args) -> Vec<f64> {
        let mut out = g.0.to_vec();
        out.extend(g.1);
        out.extend(g.2.iter().flatten());
        out.extend(g.3.iter().flatten());
        out.extend(g.4);
        out
    }
    Probe::new("bilinear", |x| {
        let (a, b, c, d, e) = args(x);
        tc::bilinear(a, b, c, d, e)
    })
    .grad(|x| {
        let (a, b, c, d, e) = args(x);
        let (v, g) = tc::bilinear_grad(a, b, c, d, e);
        (v, flat(g))
    })
    .jvp(|x, t| {
        let (a, b, c, d, e) = args(x);
        tc::bilinear_jvp(a, b, c, d, e, args(t))
    })
    .grad_into(|x| {
        let (a, b, c, d, e) = args(x);
        let mut g: Args = ([GARBAGE; 2], [GARBAGE; 2], [[GARBAGE; 3]; 2], [[GARBAGE; 3]; 2], [GARBAGE; 3]);
        let v = tc::bilinear_grad_into(a, b, c, d, e, (&mut g.0, &mut g.1, &mut g.2, &mut g.3, &mut g.4));
        (v, flat(g))
    })
    .hessian(|x| {
        let (a, b, c, d, e) = args(x);
        let (v, g, h) = tc::bilinear_hessian(a, b, c, d, e);
        (v, flat(g), h)
    })
    .run(20, range(19, -1.0, 1.0));
}
