//! A new user's numeric Rust, written as the API.md forms suggest without looking at the macro's tests:
//! statistics (a Gaussian negative log-likelihood, mean and deviation, entropy through a custom `safe_log`),
//! a logistic regression over `&[Vec<f64>]`, softmax cross-entropy with a max-shift fold, Horner by
//! `.rev().fold`, a matrix-vector product into an output parameter, Newton iterations in a `while` with
//! `break`, `match` on an integer, array patterns, a `Differentiable` spring simulated with `wrt(p)`,
//! `std::f64::consts`, `f64::max(x, y)` by path, `.windows(2)`, `.chunks(2)`, `.collect()`,
//! `.iter_mut()`, `.sin_cos()`, closures capturing an active value, and `Option<f64>` parameters.
//! Every one compiled and matched on first try (session 27) except `Option<f64>` at `order = 2`, whose
//! error named the generic copy's `__S` and cascaded into E0308s (now one spanned error naming `f64`:
//! tests/ui/signature/order-option-parameter.rs). Checked against central differences (`check_gradient`,
//! no code shared with the macro) at seeded random points; the `order = 2` ones are also in the order-2
//! census, and softmax's Hessian is checked here against differences of its gradient.

mod common;

use autodiff::{custom_gradient, differentiable, Differentiable};
use common::probe::Lcg;

#[differentiable(order = 2)]
fn gauss_nll(mu: f64, log_sigma: f64, data: &[f64]) -> f64 {
    let sigma = log_sigma.exp();
    let n = data.len() as f64;
    let ss: f64 = data.iter().map(|&x| ((x - mu) / sigma).powi(2)).sum();
    0.5 * ss + n * log_sigma + 0.5 * n * (2.0 * std::f64::consts::PI).ln()
}

#[differentiable(order = 2)]
fn logistic(w: &[f64], b: f64, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let z: f64 = w.iter().zip(x.iter()).map(|(wi, xi)| wi * xi).sum::<f64>() + b;
        loss += (1.0 + (-y * z).exp()).ln();
    }
    loss / ys.len() as f64
}

#[differentiable(order = 2)]
fn softmax_xent(z: &[f64], label: usize) -> f64 {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lse = z.iter().map(|v| (v - m).exp()).sum::<f64>().ln() + m;
    lse - z[label]
}

#[differentiable(order = 2)]
fn horner(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
}

#[differentiable]
fn matvec_out(a: &[Vec<f64>], x: &[f64], y: &mut [f64]) {
    for i in 0..a.len() {
        let mut s = 0.0;
        for j in 0..x.len() {
            s += a[i][j] * x[j];
        }
        y[i] = s.tanh();
    }
}

#[differentiable(order = 2)]
fn range_dot(x: &[f64], y: &[f64]) -> f64 {
    (0..x.len()).map(|i| x[i] * y[i]).sum()
}

#[differentiable(order = 2)]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a.max(1.0);
    let mut it = 0;
    while it < 50 {
        let nx = 0.5 * (x + a / x);
        if (nx - x).abs() < 1e-14 {
            x = nx;
            break;
        }
        x = nx;
        it += 1;
    }
    x
}

#[differentiable(order = 2)]
fn piecewise(x: f64, k: u32) -> f64 {
    match k {
        0 => x * x,
        1 | 2 => x.sin() * k as f64,
        _ => x.exp(),
    }
}

#[differentiable(order = 2)]
fn arr_pat(x: [f64; 3]) -> f64 {
    let [a, b, c] = x;
    a * b + b * c + c * a
}

#[differentiable(order = 2)]
fn mean_var(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    var.sqrt() + mean
}

#[differentiable(order = 2)]
fn enumerate_weighted(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, xi) in x.iter().enumerate() {
        s += (i as f64 + 1.0) * xi * xi;
    }
    s
}

#[derive(Clone, Debug, Differentiable)]
struct Spring {
    k: f64,
    c: f64,
    #[no_grad]
    steps: usize,
}

#[differentiable(wrt(p))]
fn simulate(p: &Spring, x0: f64, dt: f64) -> f64 {
    let (mut x, mut v) = (x0, 0.0);
    for _ in 0..p.steps {
        let a = -p.k * x - p.c * v;
        v += dt * a;
        x += dt * v;
    }
    x * x
}

#[custom_gradient]
fn safe_log(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let v = x.max(1e-12).ln();
    (v, move |dy| dy / x.max(1e-12))
}

#[differentiable(order = 2)]
fn entropy(p: &[f64]) -> f64 {
    -p.iter().map(|&pi| pi * safe_log(pi)).sum::<f64>()
}

#[differentiable(order = 2)]
fn consts_use(x: f64) -> f64 {
    (x * std::f64::consts::E).sin() + std::f64::consts::FRAC_PI_2 * x
}

#[differentiable(order = 2)]
fn ufcs(x: f64, y: f64) -> f64 {
    f64::max(x, y) + f64::sin(x) * f64::powi(y, 3) + f64::hypot(x, y)
}

#[differentiable(order = 2)]
fn chunks_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += (w[1] - w[0]).powi(2);
    }
    s
}

#[differentiable(order = 2)]
fn collect_then(x: &[f64]) -> f64 {
    let sq: Vec<f64> = x.iter().map(|v| v * v).collect();
    sq.iter().sum::<f64>().sqrt()
}

#[differentiable(order = 2)]
fn iter_mut_scale(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut() {
        *e *= 2.0;
    }
    v.iter().map(|a| a.sin()).sum()
}

#[differentiable(order = 2)]
fn tuple_ret_helper(x: f64) -> f64 {
    let (s, c) = x.sin_cos();
    s * c
}

#[differentiable(order = 2)]
fn max_fold(x: &[f64]) -> f64 {
    x.iter().fold(f64::MIN, |a, &b| a.max(b)) + x.iter().copied().fold(f64::INFINITY, f64::min)
}

#[differentiable(order = 2)]
fn nested_closure(x: &[f64], a: f64) -> f64 {
    let act = |v: f64| (a * v).tanh();
    x.iter().map(|&v| act(v)).sum()
}

#[differentiable(order = 2)]
fn chunks_exact_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += c[0] * c[c.len() - 1];
    }
    s
}

fn fd_check(name: &str, f: &dyn Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    let c = autodiff::check_gradient(f, x, g);
    assert!(
        c.is_ok(1e-6),
        "{name}: {:?} at {} ({:?} vs x {:?})",
        c.max_rel_error,
        c.worst_index,
        g,
        x
    );
}

#[test]
fn first_order_against_differences() {
    let mut lcg = Lcg::new(2701);
    for _ in 0..8 {
        probe_at(&mut lcg);
    }
}

fn probe_at(lcg: &mut Lcg) {
    let v = lcg.vec(5, -2.0, 2.0);
    let x = [v[0], v[1], v[2], v[3], v[4]];
    let data = lcg.vec(4, -1.0, 2.0);
    let (mu, ls) = (lcg.uniform(-1.0, 1.0), lcg.uniform(-0.5, 0.5));
    let (_, (gm, gl, gd)) = gauss_nll_grad(mu, ls, &data);
    fd_check("gauss mu", &|t| gauss_nll(t[0], ls, &data), &[mu], &[gm]);
    fd_check("gauss sigma", &|t| gauss_nll(mu, t[0], &data), &[ls], &[gl]);
    fd_check("gauss data", &|d| gauss_nll(mu, ls, d), &data, &gd);
    let (_, g) = chunks_sum_grad(&x);
    fd_check("windows", &|x| chunks_sum(x), &x, &g);
    let (_, g) = chunks_exact_sum_grad(&x);
    fd_check("chunks", &|x| chunks_exact_sum(x), &x, &g);
    let (_, g) = collect_then_grad(&x);
    fd_check("collect", &|x| collect_then(x), &x, &g);
    let (_, g) = iter_mut_scale_grad(&x);
    fd_check("iter_mut", &|x| iter_mut_scale(x), &x, &g);
    let (_, g) = max_fold_grad(&x);
    fd_check("max_fold", &|x| max_fold(x), &x, &g);
    let (_, g) = mean_var_grad(&x);
    fd_check("mean_var", &|x| mean_var(x), &x, &g);
    let (_, g) = enumerate_weighted_grad(&x);
    fd_check("enumerate", &|x| enumerate_weighted(x), &x, &g);
    let (_, g) = softmax_xent_grad(&x, 2);
    fd_check("softmax", &|x| softmax_xent(x, 2), &x, &g);
    let (a, t) = (lcg.uniform(-1.5, 1.5), lcg.uniform(-1.5, 1.5));
    let (_, (g, ga)) = nested_closure_grad(&x, a);
    fd_check("closure", &|x| nested_closure(x, a), &x, &g);
    fd_check("closure a", &|s| nested_closure(&x, s[0]), &[a], &[ga]);
    let (_, (gc, gx)) = horner_grad(&x, t);
    fd_check("horner c", &|c| horner(c, t), &x, &gc);
    fd_check("horner x", &|s| horner(&x, s[0]), &[t], &[gx]);
    let (a0, a1) = (lcg.uniform(0.05, 1.0), lcg.uniform(0.05, 1.0));
    let p = [a0, a1, 0.5];
    let (_, g) = entropy_grad(&p);
    fd_check("entropy", &|p| entropy(p), &p, &g);
    let (_, g) = tuple_ret_helper_grad(t);
    fd_check("sincos", &|s| tuple_ret_helper(s[0]), &[t], &[g]);
    let (_, (gx, gy)) = ufcs_grad(t, a);
    fd_check("ufcs", &|s| ufcs(s[0], s[1]), &[t, a], &[gx, gy]);
    let (_, g) = consts_use_grad(t);
    fd_check("consts", &|s| consts_use(s[0]), &[t], &[g]);
    let r = lcg.uniform(0.2, 9.0);
    let (_, g) = newton_sqrt_grad(r);
    fd_check("newton", &|s| newton_sqrt(s[0]), &[r], &[g]);
    assert!((g - 0.5 / r.sqrt()).abs() < 1e-9, "newton: {g} at {r}");
    let (_, g) = arr_pat_grad([x[0], x[1], x[2]]);
    fd_check("arr", &|s| arr_pat([s[0], s[1], s[2]]), &x[..3], &g);
    for k in 0..4u32 {
        let (_, g) = piecewise_grad(t, k);
        fd_check("piecewise", &|s| piecewise(s[0], k), &[t], &[g]);
    }
    let s = Spring {
        k: lcg.uniform(0.5, 3.0),
        c: lcg.uniform(0.0, 0.5),
        steps: 50,
    };
    let (_, gs) = simulate_grad(&s, 1.0, 0.05);
    let flat = s.to_flat();
    let gflat = gs.to_flat();
    fd_check(
        "spring",
        &|q| simulate(&s.from_flat(q), 1.0, 0.05),
        &flat,
        &gflat,
    );
    let xs = vec![vec![0.5, -1.0], vec![1.5, 0.2], vec![-0.3, 0.8]];
    let ys = [1.0, -1.0, 1.0];
    let w = [x[3], x[4]];
    let (_, (gw, gb, _, gy)) = logistic_grad(&w, t, &xs, &ys);
    fd_check("logistic w", &|w| logistic(w, t, &xs, &ys), &w, &gw);
    fd_check("logistic b", &|b| logistic(&w, b[0], &xs, &ys), &[t], &[gb]);
    fd_check("logistic y", &|y| logistic(&w, t, &xs, y), &ys, &gy);
    let (_, (gx2, gy2)) = range_dot_grad(&x, &p.repeat(2)[..5]);
    let y5 = p.repeat(2)[..5].to_vec();
    fd_check("range_dot x", &|x| range_dot(x, &y5), &x, &gx2);
    fd_check("range_dot y", &|y| range_dot(&x, y), &y5, &gy2);
    // Hessians by central differences of the gradient
    assert_eq!(scaled(t, Some(a)), t * t * a);
    let (_, _, h) = softmax_xent_hessian(&x, 1);
    for i in 0..5 {
        let e = 1e-5;
        let mut xp = x;
        xp[i] += e;
        let mut xm = x;
        xm[i] -= e;
        let (gp, gm) = (softmax_xent_grad(&xp, 1).1, softmax_xent_grad(&xm, 1).1);
        for j in 0..5 {
            let fd = (gp[j] - gm[j]) / (2.0 * e);
            assert!(
                (h[i][j] - fd).abs() < 1e-6,
                "softmax H[{i}][{j}] {} vs {}",
                h[i][j],
                fd
            );
        }
    }
    // output parameter
    let a = vec![vec![0.5, -1.0, 0.3], vec![1.5, 0.2, -0.7]];
    let xv = [x[0], x[1], x[2]];
    let mut y = [0.0; 2];
    matvec_out(&a, &xv, &mut y);
    let mut dy = [0.0; 2];
    matvec_out_jvp(
        &a,
        &xv,
        &mut y,
        (vec![vec![0.0; 3]; 2], vec![1.0, 0.0, 0.0]),
        &mut dy,
    );
    let e = 1e-6;
    let mut yp = [0.0; 2];
    let mut ym = [0.0; 2];
    matvec_out(&a, &[xv[0] + e, xv[1], xv[2]], &mut yp);
    matvec_out(&a, &[xv[0] - e, xv[1], xv[2]], &mut ym);
    for i in 0..2 {
        assert!(
            (dy[i] - (yp[i] - ym[i]) / (2.0 * e)).abs() < 1e-6,
            "matvec jvp {i}: {} vs {}",
            dy[i],
            (yp[i] - ym[i]) / (2.0 * e)
        );
    }
}

fn plain_scale(scale: Option<f64>) -> f64 {
    scale.unwrap_or(1.0)
}

/// An `Option` of a float beside the active parameter, at first order (the error of `order = K` says it
/// works: tests/ui/signature/order-option-parameter.rs).
#[differentiable]
fn scaled(x: f64, scale: Option<f64>) -> f64 {
    x * x * plain_scale(scale)
}

#[differentiable]
fn scaled_generic<T: num_traits::Float>(x: T, scale: Option<T>) -> T {
    x * x * scale.unwrap_or(T::one())
}

#[test]
fn option_parameters_first_order() {
    for &x in &[-1.5, 0.3, 2.0] {
        for s in [None, Some(0.5), Some(-2.0)] {
            let k = s.unwrap_or(1.0);
            let (v, g) = scaled_grad(x, s);
            assert!((v - k * x * x).abs() < 1e-12 && (g - 2.0 * k * x).abs() < 1e-12);
            let (v, g) = scaled_generic_grad(x, s);
            assert!((v - k * x * x).abs() < 1e-12 && (g - 2.0 * k * x).abs() < 1e-12);
        }
    }
}
