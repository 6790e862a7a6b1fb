//! Each eval's derivative against central finite differences of its primal (`check_gradient`), on
//! small random inputs, and each primal against a value worked out independently.

#![allow(clippy::needless_range_loop)]

use autodiff::check_gradient;
use autodiff_gradbench::evals::{det, gmm, ht, kmeans, llsq, lse, ode, particle, saddle};

/// Relative tolerance of a gradient against central differences.
const FD_TOLERANCE: f64 = 1e-6;

/// A small deterministic generator (SplitMix64): uniform numbers in [lo, hi).
struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

fn assert_close(what: &str, got: f64, want: f64, tol: f64) {
    let err = (got - want).abs() / want.abs().max(1.0);
    assert!(
        err <= tol,
        "{what}: {got} against {want} (relative {err:e})"
    );
}

#[test]
fn lse_gradient_matches_finite_differences() {
    let mut rng = Rng(1);
    for n in [1, 2, 7, 30] {
        let x = rng.vec(n, -5.0, 5.0);
        let naive = x.iter().map(|v| v.exp()).sum::<f64>().ln();
        assert_close("lse value", lse::logsumexp(&x), naive, 1e-12);
        let mut grad = vec![f64::NAN; n];
        let value = lse::logsumexp_grad_into(&x, &mut grad);
        assert_close("lse value of grad_into", value, naive, 1e-12);
        let check = check_gradient(lse::logsumexp, &x, &grad);
        assert!(check.is_ok(FD_TOLERANCE), "lse n = {n}: {check}");
    }
    // Large inputs do not overflow (the max trick).
    let (value, grad) = lse::logsumexp_grad(&[1000.0, 1000.0]);
    assert_close("lse of large values", value, 1000.0 + 2f64.ln(), 1e-15);
    assert_eq!(grad, vec![0.5, 0.5]);
}

#[test]
fn llsq_gradient_matches_finite_differences() {
    let mut rng = Rng(2);
    for (m, n) in [(1, 2), (3, 5), (6, 11)] {
        let x = rng.vec(m, -1.0, 1.0);
        let mut grad = vec![f64::NAN; m];
        llsq::llsq_grad_into(&x, n, &mut grad);
        let check = check_gradient(|x| llsq::llsq(x, n), &x, &grad);
        assert!(check.is_ok(FD_TOLERANCE), "llsq m = {m}, n = {n}: {check}");
    }
    // n = 3: t = (-1, 0, 1), s = (-1, 0, 1); with x = (a, b): residuals -1 - a + b, -a, 1 - a - b.
    let (a, b): (f64, f64) = (0.3, -0.2);
    let want = 0.5 * ((-1.0 - a + b).powi(2) + a * a + (1.0 - a - b).powi(2));
    assert_close("llsq value", llsq::llsq(&[a, b], 3), want, 1e-15);
}

#[test]
fn ode_gradient_matches_finite_differences() {
    let mut rng = Rng(3);
    for (n, s) in [(1, 1), (2, 3), (5, 10)] {
        let x = rng.vec(n, 0.0, 1.0);
        let mut last = vec![0.0; n];
        last[n - 1] = 1.0;
        let (y, grad) = ode::ode_vjp(&x, s, last);
        assert_eq!(y, ode::ode(&x, s));
        let check = check_gradient(|x| ode::ode(x, s)[n - 1], &x, &grad);
        assert!(check.is_ok(FD_TOLERANCE), "ode n = {n}, s = {s}: {check}");
    }
    // The solution is y_i(t) = x_0 x_1 .. x_i t^(i+1) / (i+1)!, a polynomial of degree at most 4
    // for n <= 4, which RK4 integrates exactly.
    let x = [0.5, 0.3, 0.2, 0.7];
    let y = ode::ode(&x, 3);
    let mut product = 1.0;
    let mut factorial = 1.0;
    for i in 0..4 {
        product *= x[i];
        factorial *= (i + 1) as f64;
        assert_close(
            "ode value",
            y[i],
            product * 2f64.powi(i as i32 + 1) / factorial,
            1e-13,
        );
    }
}

#[test]
fn det_gradient_matches_finite_differences() {
    let mut rng = Rng(4);
    for ell in 1..=5 {
        let a = rng.vec(ell * ell, -1.0, 1.0);
        let mut grad = vec![f64::NAN; ell * ell];
        det::det_grad_into(&a, ell, &mut grad);
        let check = check_gradient(|a| det::det(a, ell), &a, &grad);
        assert!(check.is_ok(FD_TOLERANCE), "det ell = {ell}: {check}");
    }
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
    assert_close("det value", det::det(&a, 3), -3.0, 1e-15);
    // The gradient of det A is the cofactor matrix.
    let (_, grad) = det::det_grad(&a, 3);
    assert_eq!(grad, vec![2.0, 2.0, -3.0, 4.0, -11.0, 6.0, -3.0, 6.0, -3.0]);
}

#[test]
fn kmeans_direction_is_the_newton_step() {
    let mut rng = Rng(5);
    let (n, k, d) = (20, 3, 2);
    let points = rng.vec(n * d, 0.0, 1.0);
    // As GradBench does: the last k points are the centroids, so no cluster is empty.
    let centroids = points[(n - k) * d..].to_vec();
    let (cost, grad) = kmeans::kmeans_cost_grad(&points, &centroids, d);
    assert_close(
        "kmeans cost",
        cost,
        kmeans::kmeans_cost(&points, &centroids, d),
        1e-15,
    );
    // Shifted off the points, so no distance ties and the cost is smooth there.
    let shifted: Vec<f64> = centroids.iter().map(|c| c + 1e-3).collect();
    let (_, grad_shifted) = kmeans::kmeans_cost_grad(&points, &shifted, d);
    let check = check_gradient(
        |c| kmeans::kmeans_cost(&points, c, d),
        &shifted,
        &grad_shifted,
    );
    assert!(check.is_ok(FD_TOLERANCE), "kmeans: {check}");

    // dir = J / diag(H) = centroid - mean of its cluster, as GradBench's manual tool computes it.
    let ones = vec![1.0; k * d];
    let (_, grad_hvp, h_diag) = kmeans::kmeans_cost_hvp(&points, &centroids, d, ones);
    assert_eq!(grad_hvp, grad);
    let mut sums = vec![0.0; k * d];
    let mut counts = vec![0.0; k];
    for p in points.chunks(d) {
        let dist = |c: &[f64]| p.iter().zip(c).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        let closest = (0..k)
            .min_by(|&a, &b| {
                let (da, db) = (
                    dist(&centroids[a * d..][..d]),
                    dist(&centroids[b * d..][..d]),
                );
                da.partial_cmp(&db).unwrap()
            })
            .unwrap();
        counts[closest] += 1.0;
        for l in 0..d {
            sums[closest * d + l] += p[l];
        }
    }
    for j in 0..k * d {
        let want = centroids[j] - sums[j] / counts[j / d];
        assert_close("kmeans dir", grad[j] / h_diag[j], want, 1e-12);
    }
}

/// GMM input of the given sizes, from `rng`.
fn gmm_input(rng: &mut Rng, d: usize, k: usize, n: usize) -> gmm::Input {
    gmm::Input {
        alpha: rng.vec(k, -1.0, 1.0),
        mu: rng.vec(k * d, -1.0, 1.0),
        q: rng.vec(k * d, -0.5, 0.5),
        l: rng.vec(k * d * (d - 1) / 2, -0.5, 0.5),
        x: rng.vec(n * d, -1.0, 1.0),
        d,
        m: 2,
        gamma: 1.5,
    }
}

/// The log posterior from its definition: Gaussian densities with the precision matrix Q^T Q formed
/// explicitly, and the Wishart log density of each precision matrix.
fn gmm_naive(input: &gmm::Input) -> f64 {
    let d = input.d;
    let k = input.alpha.len();
    let n = input.x.len() / d;
    let l_size = d * (d - 1) / 2;
    let weight_sum: f64 = input.alpha.iter().map(|a| a.exp()).sum();
    let ln_gamma = |x: f64| -> f64 {
        // ln Γ(x) for a multiple of 1/2, by the recurrence, independently of gmm.rs.
        let mut y = x;
        let mut value = 0.0;
        while y > 1.0 {
            y -= 1.0;
            value += y.ln();
        }
        value
            + if y == 0.5 {
                0.5 * std::f64::consts::PI.ln()
            } else {
                0.0
            }
    };
    let mut precision = vec![vec![vec![0.0; d]; d]; k];
    let mut log_det_precision = vec![0.0; k];
    let mut frobenius = vec![0.0; k];
    for c in 0..k {
        // Q: exp(q) on the diagonal, l below it column by column.
        let mut q_mat = vec![vec![0.0; d]; d];
        let mut li = c * l_size;
        for j in 0..d {
            q_mat[j][j] = input.q[c * d + j].exp();
            for i in j + 1..d {
                q_mat[i][j] = input.l[li];
                li += 1;
            }
        }
        for a in 0..d {
            for b in 0..d {
                precision[c][a][b] = (0..d).map(|r| q_mat[r][a] * q_mat[r][b]).sum();
                frobenius[c] += q_mat[a][b] * q_mat[a][b];
            }
        }
        log_det_precision[c] = 2.0 * input.q[c * d..(c + 1) * d].iter().sum::<f64>();
    }
    let mut log_likelihood = 0.0;
    for i in 0..n {
        let x = &input.x[i * d..(i + 1) * d];
        let mut density = 0.0;
        for c in 0..k {
            let diff: Vec<f64> = (0..d).map(|j| x[j] - input.mu[c * d + j]).collect();
            let mut quad = 0.0;
            for a in 0..d {
                for b in 0..d {
                    quad += diff[a] * precision[c][a][b] * diff[b];
                }
            }
            let phi = input.alpha[c].exp() / weight_sum;
            density += phi * (-0.5 * quad).exp() * (0.5 * log_det_precision[c]).exp()
                / (2.0 * std::f64::consts::PI).powf(0.5 * d as f64);
        }
        log_likelihood += density.ln();
    }
    let dof = (d + input.m + 1) as f64;
    let p = d as f64;
    let ln_gamma_p = 0.25 * p * (p - 1.0) * std::f64::consts::PI.ln()
        + (1..=d)
            .map(|j| ln_gamma(0.5 * dof + 0.5 * (1.0 - j as f64)))
            .sum::<f64>();
    let mut log_prior = 0.0;
    for c in 0..k {
        // ln W(X | V = I / gamma^2, dof) with X the precision matrix.
        log_prior += 0.5 * (dof - p - 1.0) * log_det_precision[c]
            - 0.5 * input.gamma * input.gamma * frobenius[c]
            - 0.5 * dof * p * 2f64.ln()
            + dof * p * input.gamma.ln()
            - ln_gamma_p;
    }
    log_likelihood + log_prior
}

#[test]
fn gmm_objective_matches_its_definition_and_gradient_finite_differences() {
    let mut rng = Rng(6);
    for (d, k, n) in [(1, 1, 1), (2, 3, 4), (3, 2, 5)] {
        let input = gmm_input(&mut rng, d, k, n);
        assert_close("gmm objective", input.objective(), gmm_naive(&input), 1e-10);

        let mut grad = gmm::Gradient::zeros_like(&input);
        let value = grad.compute(&input);
        assert_close("gmm value of grad_into", value, input.objective(), 1e-12);
        // All parameters flattened as (alpha, mu, q, l).
        let sizes = [
            input.alpha.len(),
            input.mu.len(),
            input.q.len(),
            input.l.len(),
        ];
        let flat: Vec<f64> = [&input.alpha, &input.mu, &input.q, &input.l]
            .iter()
            .flat_map(|v| v.iter().copied())
            .collect();
        let flat_grad: Vec<f64> = [&grad.alpha, &grad.mu, &grad.q, &grad.l]
            .iter()
            .flat_map(|v| v.iter().copied())
            .collect();
        let objective = |p: &[f64]| {
            let (alpha, rest) = p.split_at(sizes[0]);
            let (mu, rest) = rest.split_at(sizes[1]);
            let (q, l) = rest.split_at(sizes[2]);
            gmm::gmm_objective(alpha, mu, q, l, &input.x, d, input.m, input.gamma)
        };
        let check = check_gradient(objective, &flat, &flat_grad);
        assert!(
            check.is_ok(FD_TOLERANCE),
            "gmm d = {d}, k = {k}, n = {n}: {check}"
        );
    }
}

#[test]
fn lstm_gradient_matches_finite_differences() {
    use autodiff_gradbench::evals::lstm;
    let mut rng = Rng(7);
    for (l, b, c) in [(1, 2, 2), (2, 3, 4)] {
        let input = lstm::Input {
            main_params: rng.vec(8 * b * l, -1.0, 1.0),
            extra_params: rng.vec(3 * b, -1.0, 1.0),
            state: rng.vec(2 * b * l, -1.0, 1.0),
            sequence: rng.vec(c * b, -1.0, 1.0),
            l,
            b,
        };
        let mut main = vec![f64::NAN; input.main_params.len()];
        let mut extra = vec![f64::NAN; input.extra_params.len()];
        let value = input.gradient_into(&mut main, &mut extra);
        assert_close("lstm value of grad_into", value, input.objective(), 1e-12);
        let split = input.main_params.len();
        let params = [input.main_params.as_slice(), &input.extra_params].concat();
        let grad = [main.as_slice(), &extra].concat();
        let objective = |p: &[f64]| {
            let (main, extra) = p.split_at(split);
            lstm::lstm_objective(main, extra, &input.state, &input.sequence, l, b)
        };
        let check = check_gradient(objective, &params, &grad);
        assert!(
            check.is_ok(FD_TOLERANCE),
            "lstm l = {l}, b = {b}, c = {c}: {check}"
        );
    }
    // One layer, b = 1, c = 2, all parameters zero: the gates are 1/2, the cell and hidden values 0,
    // the prediction 0, and the loss -y1 (0 - ln(1 + 2)) / 1.
    let zero = lstm::lstm_objective(&[0.0; 8], &[0.0; 3], &[0.0; 2], &[0.5, 0.7], 1, 1);
    assert_close("lstm value", zero, 0.7 * 3f64.ln(), 1e-15);
}

#[test]
fn ba_jacobian_matches_finite_differences() {
    use autodiff_gradbench::evals::ba;
    let mut rng = Rng(8);
    // A camera with a rotation, and one without (the other branch of Rodrigues' formula).
    for rotated in [true, false] {
        let mut cam = rng.vec(ba::CAMERA_PARAMS, -0.5, 0.5);
        if !rotated {
            cam[..3].fill(0.0);
        }
        cam[6] = 1.5; // focal length
        let mut x = rng.vec(3, -1.0, 1.0);
        x[2] += 4.0; // in front of the camera
        let w = 0.8;
        let feat = rng.vec(2, -1.0, 1.0);
        let jac = ba::reprojection_error_jacobian(&cam, &x, w, &feat);
        assert_eq!((jac.len(), jac[0].len()), (2, ba::CAMERA_PARAMS + 3 + 1));
        let params = [&cam[..], &x, &[w]].concat();
        for (row, grad) in jac.iter().enumerate() {
            let f = |p: &[f64]| ba::reprojection_error(&p[..11], &p[11..14], p[14], &feat)[row];
            // The rotation's derivative at 0 is the limit of the other branch; finite differences
            // there straddle both, so only the other parameters are compared.
            let check = if rotated {
                check_gradient(f, &params, grad)
            } else {
                check_gradient(
                    |q: &[f64]| f(&[&params[..3], q].concat()),
                    &params[3..],
                    &grad[3..],
                )
            };
            assert!(
                check.is_ok(FD_TOLERANCE),
                "ba row {row}, rotated {rotated}: {check}"
            );
        }
    }
    // No rotation, centre 0, focal length 1, no shift or distortion: the pinhole projection.
    let mut cam = [0.0; 11];
    cam[6] = 1.0;
    let err = ba::reprojection_error(&cam, &[1.0, 2.0, 4.0], 2.0, &[0.0, 0.0]);
    assert_eq!(err, [0.5, 1.0]);
    // A quarter turn about z takes (1, 0, 4) to (0, 1, 4).
    cam[2] = std::f64::consts::FRAC_PI_2;
    let err = ba::reprojection_error(&cam, &[1.0, 0.0, 4.0], 1.0, &[0.0, 0.0]);
    assert!(
        err[0].abs() < 1e-15 && (err[1] - 0.25).abs() < 1e-15,
        "{err:?}"
    );
    assert_eq!(ba::weight_error_grad(0.8), (1.0 - 0.8 * 0.8, -1.6));
}

/// The central difference of `f` at `x` with step `h`.
fn central(f: impl Fn(f64) -> f64, x: f64, h: f64) -> f64 {
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn particle_forces_and_their_pullbacks_match_finite_differences() {
    let mut rng = Rng(9);
    for _ in 0..5 {
        let (x0, x1, w) = (
            rng.uniform(0.0, 5.0),
            rng.uniform(1.0, 8.0),
            rng.uniform(-1.0, 1.0),
        );
        let h = 1e-6;
        let want = (
            -central(|v| particle::potential(v, x1, w), x0, h),
            -central(|v| particle::potential(x0, v, w), x1, h),
        );
        for (name, force) in [
            (
                "force_r",
                particle::force_r as fn(f64, f64, f64) -> (f64, f64),
            ),
            ("force_f", particle::force_f),
        ] {
            let got = force(x0, x1, w);
            assert_close(name, got.0, want.0, 1e-7);
            assert_close(name, got.1, want.1, 1e-7);
        }
        // The pullback, through the outer reverse pass: d/dw of c . force.
        let (c0, c1) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let dot_r = |v: f64| {
            let (a0, a1) = particle::force_r(x0, x1, v);
            c0 * a0 + c1 * a1
        };
        let (_, (_, _, dw_r)) = particle::force_r_vjp(x0, x1, w, (c0, c1));
        let (_, (_, _, dw_f)) = particle::force_f_vjp(x0, x1, w, (c0, c1));
        let want_dw = central(dot_r, w, h);
        assert_close("force_r pullback", dw_r, want_dw, 1e-6);
        assert_close("force_f pullback", dw_f, want_dw, 1e-6);
    }
}

#[test]
fn particle_outer_derivatives_agree_with_finite_differences_in_all_four_modes() {
    for w in [-0.3, 0.0, 0.2] {
        let want = central(|v| particle::naive_euler(v, true), w, 1e-6);
        let (_, rr) = particle::naive_euler_grad(w, true);
        let (_, rf) = particle::naive_euler_grad(w, false);
        let fr = particle::naive_euler(autodiff::Dual::new(w, 1.0), true).eps;
        let ff = particle::naive_euler(autodiff::Dual::new(w, 1.0), false).eps;
        for (mode, got) in [("rr", rr), ("rf", rf), ("fr", fr), ("ff", ff)] {
            assert_close(mode, got, want, 1e-5);
        }
    }
}

#[test]
fn particle_finds_gradbenchs_control() {
    // GradBench's expected answer for w0 = 0 (evals/particle), to its tolerance.
    for function in particle::FUNCTIONS {
        let w = particle::argmin_w(function, 0.0).unwrap();
        assert_close(function, w, 0.2071918746486116, 1e-9);
    }
}

#[test]
fn saddle_inner_gradients_and_their_pullbacks_are_analytic() {
    let mut rng = Rng(10);
    for _ in 0..5 {
        let p: Vec<f64> = rng.vec(4, -2.0, 2.0);
        let (c0, c1) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        for reverse in [true, false] {
            // grad_p2 f = -2 p2; its pullback is H (0, 0, c0, c1) = (0, 0, -2 c0, -2 c1).
            let (gx, gy) = saddle::grad_p2(p[0], p[1], p[2], p[3], reverse);
            assert_close("grad_p2 x", gx, -2.0 * p[2], 1e-15);
            assert_close("grad_p2 y", gy, -2.0 * p[3], 1e-15);
            let (_, pulled) = saddle::grad_p2_vjp(p[0], p[1], p[2], p[3], reverse, (c0, c1));
            assert_eq!(
                pulled,
                (0.0, 0.0, -2.0 * c0, -2.0 * c1),
                "reverse = {reverse}"
            );
        }
    }
}

#[test]
fn saddle_outer_gradient_through_the_inner_descent_matches_finite_differences() {
    let mut rng = Rng(11);
    for _ in 0..3 {
        let (p1x, p1y) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let (sx, sy) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        for reverse in [true, false] {
            let max = |x: f64, y: f64| saddle::max_over_p2(x, y, sx, sy, reverse);
            let want = (
                central(|v| max(v, p1y), p1x, 1e-6),
                central(|v| max(p1x, v), p1y, 1e-6),
            );
            // The argmax does not depend on p1, so the gradient is 2 p1.
            assert_close("analytic", want.0, 2.0 * p1x, 1e-6);
            let (_, outer_reverse) = saddle::max_over_p2_grad(p1x, p1y, sx, sy, reverse);
            let dual = |k: usize| {
                let d = |v: f64, j: usize| autodiff::Dual::new(v, if j == k { 1.0 } else { 0.0 });
                let s = |v: f64| autodiff::Dual::constant(v);
                saddle::max_over_p2(d(p1x, 0), d(p1y, 1), s(sx), s(sy), reverse).eps
            };
            let outer_forward = (dual(0), dual(1));
            for (mode, got) in [
                ("outer reverse", outer_reverse),
                ("outer forward", outer_forward),
            ] {
                assert_close(mode, got.0, want.0, 1e-6);
                assert_close(mode, got.1, want.1, 1e-6);
            }
        }
    }
}

#[test]
fn saddle_finds_gradbenchs_point() {
    // GradBench's expected answer from (1, 1) (evals/saddle).
    for function in saddle::FUNCTIONS {
        let got = saddle::saddle(function, [1.0, 1.0]).unwrap();
        for v in got {
            assert!(
                (v - 8.246324826140356e-06).abs() < 1e-12,
                "{function}: {got:?}"
            );
        }
    }
}

/// A random hand of 22 bones (each bone's parent earlier), `vertices` vertices each skinned by two
/// bones, random transforms, and `n` points with their correspondences (and `us`, if `complicated`).
fn ht_input(rng: &mut Rng, vertices: usize, n: usize, complicated: bool) -> ht::Input {
    let bones = 22;
    let parents = (0..bones)
        .map(|b| {
            if b == 0 {
                -1
            } else {
                (rng.uniform(0.0, b as f64) as i64).min(b as i64 - 1)
            }
        })
        .collect();
    let transform = |rng: &mut Rng| {
        let mut m = rng.vec(16, -0.5, 0.5);
        m[12..].copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
        for i in 0..3 {
            m[i * 5] += 1.0;
        }
        m
    };
    let mut weights = vec![0.0; vertices * bones];
    for v in 0..vertices {
        let a = v % bones;
        let w = rng.uniform(0.2, 0.8);
        weights[v * bones + a] = w;
        weights[v * bones + (a + 7) % bones] = 1.0 - w;
    }
    let triangles: Vec<usize> = (0..2 * vertices)
        .map(|i| (i * 7 + i / 3) % vertices)
        .collect();
    let model = ht::Model {
        parents,
        base_relatives: (0..bones).flat_map(|_| transform(rng)).collect(),
        inverse_base_absolutes: (0..bones).flat_map(|_| transform(rng)).collect(),
        base_positions: (0..vertices)
            .flat_map(|_| {
                let mut p = rng.vec(3, -1.0, 1.0);
                p.push(1.0);
                p
            })
            .collect(),
        weights,
        triangles,
        is_mirrored: false,
    };
    let targets = if complicated {
        model.triangles.len() / 3
    } else {
        vertices
    };
    ht::Input {
        theta: rng.vec(26, -0.6, 0.6),
        us: if complicated {
            rng.vec(2 * n, 0.0, 0.5)
        } else {
            Vec::new()
        },
        correspondences: (0..n).map(|i| (i * 5 + 3) % targets).collect(),
        points: rng.vec(3 * n, -1.0, 1.0),
        model,
    }
}

#[test]
fn ht_objective_of_a_rest_pose_is_skinning_plus_translation() {
    let mut rng = Rng(12);
    let mut input = ht_input(&mut rng, 10, 6, false);
    let identity: Vec<f64> = (0..16)
        .map(|k| if k % 5 == 0 { 1.0 } else { 0.0 })
        .collect();
    input.model.base_relatives = identity.repeat(22);
    input.model.inverse_base_absolutes = identity.repeat(22);
    input.theta = vec![0.0; 26];
    input.theta[3..6].copy_from_slice(&[0.5, -1.0, 2.0]);
    let err = input.objective();
    for (p, &c) in input.correspondences.iter().enumerate() {
        for j in 0..3 {
            // The weights of a vertex add to 1, so it stays where it is, moved by the translation.
            let want = input.points[p * 3 + j]
                - input.model.base_positions[c * 4 + j]
                - input.theta[3 + j];
            assert_close("rest pose", err[p * 3 + j], want, 1e-12);
        }
    }
    // A global rotation by a quarter turn about z takes (x, y, z) to (-y, x, z).
    input.theta[..3].copy_from_slice(&[0.0, 0.0, std::f64::consts::FRAC_PI_2]);
    input.theta[3..6].copy_from_slice(&[0.0, 0.0, 0.0]);
    let err = input.objective();
    for (p, &c) in input.correspondences.iter().enumerate() {
        let v = &input.model.base_positions[c * 4..c * 4 + 3];
        let want = [-v[1], v[0], v[2]];
        for j in 0..3 {
            assert_close(
                "rotated",
                err[p * 3 + j],
                input.points[p * 3 + j] - want[j],
                1e-12,
            );
        }
    }
}

#[test]
fn ht_jacobian_matches_finite_differences() {
    let mut rng = Rng(13);
    for complicated in [false, true] {
        let mut input = ht_input(&mut rng, 30, 8, complicated);
        let rows = 3 * input.correspondences.len();
        let mut jac = Vec::new();
        ht::jacobian(&input, &mut jac);
        let extra = if complicated { 2 } else { 0 };
        assert_eq!(jac.len(), rows * (26 + extra));
        let h = 1e-6;
        // Columns of theta.
        for k in 0..26 {
            let base = input.theta[k];
            input.theta[k] = base + h;
            let plus = input.objective();
            input.theta[k] = base - h;
            let minus = input.objective();
            input.theta[k] = base;
            for r in 0..rows {
                let want = (plus[r] - minus[r]) / (2.0 * h);
                assert_close(
                    &format!("theta {k}, row {r}"),
                    jac[(extra + k) * rows + r],
                    want,
                    1e-6,
                );
            }
        }
        // The two columns of us: row r's own point's coordinate.
        for k in 0..extra {
            for p in 0..input.correspondences.len() {
                let base = input.us[2 * p + k];
                input.us[2 * p + k] = base + h;
                let plus = input.objective();
                input.us[2 * p + k] = base - h;
                let minus = input.objective();
                input.us[2 * p + k] = base;
                for j in 0..3 {
                    let r = 3 * p + j;
                    let want = (plus[r] - minus[r]) / (2.0 * h);
                    assert_close(&format!("u{k} of point {p}"), jac[k * rows + r], want, 1e-6);
                }
            }
        }
    }
}
