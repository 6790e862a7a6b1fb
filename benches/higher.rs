//! Issue 8: the cost of second derivatives, as ratios to the first-order gradient of the same function
//! measured in the same run. See `benches/README.md`.
//!
//! - `hvp_rosenbrock_n1000`: `rosenbrock_hvp` (forward over reverse) against `rosenbrock_grad_into` (target:
//!   at most 3x), beside the Hessian-vector product written by hand and one pass of the generic body on
//!   `Dual<Dual<f64>>` (which gives `vᵀHv` only, a scalar, for scale).
//! - `hvp_gmm_d2_k5_n1000`: the ADBench GMM objective (`autodiff_gradbench::evals::gmm`, `order = 2`) on
//!   the instance `benches/data/gmm_d2_K5.txt`: `gmm_objective_hvp` against `gmm_objective_grad_into` (target:
//!   at most 3x).
//! - `hessian_dense_n10`: `dense_hessian` of 10 inputs against `dense_grad_into` (target: at most 12x),
//!   beside the full Hessian by `Dual<Dual<f64>>` (55 forward-over-forward passes, one per entry of the
//!   upper triangle).
//!
//! Before any timing, each group checks the generated second derivatives against the hand-written or
//! `Dual<Dual<f64>>` ones and against central differences of the generated gradient, so that no wrong
//! derivative is ever timed.

#[path = "common/estimates.rs"]
mod estimates;

#[path = "higher/functions.rs"]
mod functions;

#[path = "common/gmm_data.rs"]
mod gmm_data;

use autodiff::Dual;
use criterion::{BenchmarkGroup, Criterion};
use estimates::{criterion_dir, format_ratio, format_time, measured_median};
use functions::*;
use std::hint::black_box;
use std::time::{Duration, SystemTime};

const HVP_GROUP: &str = "hvp_rosenbrock_n1000";
const GMM_GROUP: &str = "hvp_gmm_d2_k5_n1000";
const HESSIAN_GROUP: &str = "hessian_dense_n10";
/// Issue 8's targets: `f_hvp` at most 3x `f_grad`, `f_hessian` of 10 inputs at most 12x.
const HVP_TARGET: f64 = 3.0;
const HESSIAN_TARGET: f64 = 12.0;

/// `n` inputs in (-1, 1), from a fixed linear congruential sequence.
fn inputs(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

#[track_caller]
fn assert_close(what: &str, got: &[f64], expected: &[f64], tol: f64) {
    let scale = expected.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            (g - e).abs() <= tol * scale,
            "{what}: entry {i} is {g}, expected {e} (tolerance {tol} relative to {scale})"
        );
    }
    assert_eq!(got.len(), expected.len(), "{what}: lengths");
}

/// Central differences of `grad` along `v` at `x`: an approximation of `H v`.
fn fd_hvp(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], v: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let at = |s: f64| {
        grad(
            &x.iter()
                .zip(v)
                .map(|(a, b)| a + s * h * b)
                .collect::<Vec<_>>(),
        )
    };
    let (above, below) = (at(1.0), at(-1.0));
    above
        .iter()
        .zip(&below)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

/// `x` seeded for `Dual<Dual<f64>>`: the inner tangent `u`, the outer `w`; the result's `eps.eps` is
/// `uᵀ H w`.
fn dual_dual(x: &[f64], u: &[f64], w: &[f64]) -> Vec<Dual<Dual<f64>>> {
    x.iter()
        .zip(u)
        .zip(w)
        .map(|((&a, &b), &c)| Dual::new(Dual::new(a, b), Dual::new(c, 0.0)))
        .collect()
}

fn bench_hvp(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let n = 1000;
    let x = inputs(n, 1);
    let v = inputs(n, 2);
    let mut hand = vec![0.0; n];
    rosenbrock_hvp_hand(&x, &v, &mut hand);
    let fd = fd_hvp(|x| rosenbrock_grad(x).1, &x, &v);
    assert_close(
        "hand-written Hv against central differences",
        &hand,
        &fd,
        1e-6,
    );
    let (value, grad, hv) = rosenbrock_hvp(&x, v.clone());
    assert_eq!(value, rosenbrock(&x));
    assert_close(
        "rosenbrock_hvp's gradient",
        &grad,
        &rosenbrock_grad(&x).1,
        1e-12,
    );
    assert_close(
        "rosenbrock_hvp against the hand-written Hv",
        &hv,
        &hand,
        1e-12,
    );
    let vhv = rosenbrock_generic(&dual_dual(&x, &v, &v)).eps.eps;
    let expected: f64 = v.iter().zip(&hand).map(|(a, b)| a * b).sum();
    assert_close("Dual<Dual<f64>>'s vᵀHv", &[vhv], &[expected], 1e-12);

    let mut g = vec![0.0; n];
    group.bench_function("primal", |b| b.iter(|| rosenbrock(black_box(&x))));
    group.bench_function("grad_into", |b| {
        b.iter(|| rosenbrock_grad_into(black_box(&x), &mut g))
    });
    group.bench_function("hvp", |b| {
        b.iter(|| rosenbrock_hvp(black_box(&x), black_box(v.clone())))
    });
    group.bench_function("hand_hvp", |b| {
        b.iter(|| rosenbrock_hvp_hand(black_box(&x), black_box(&v), &mut hand))
    });
    let seeded = dual_dual(&x, &v, &v);
    group.bench_function("dual_dual_vhv", |b| {
        b.iter(|| rosenbrock_generic(black_box(&seeded)))
    });
}

fn bench_gmm_hvp(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    use autodiff_gradbench::evals::gmm;
    let g = gmm_data::gmm_instance("gmm_d2_K5.txt");
    let (d, m, gamma) = (g.d, g.m, g.gamma);
    let sizes = [g.alpha.len(), g.mu.len(), g.q.len(), g.l.len()];
    let n: usize = sizes.iter().sum();
    let split = |flat: &[f64]| {
        let (a, rest) = flat.split_at(sizes[0]);
        let (mu, rest) = rest.split_at(sizes[1]);
        let (q, l) = rest.split_at(sizes[2]);
        (a.to_vec(), mu.to_vec(), q.to_vec(), l.to_vec())
    };
    let flat = [&g.alpha[..], &g.mu, &g.q, &g.l].concat();
    let grad = |p: &[f64]| {
        let (a, mu, q, l) = split(p);
        let (_, (ga, gm, gq, gl)) = gmm::gmm_objective_grad(&a, &mu, &q, &l, &g.x, d, m, gamma);
        [ga, gm, gq, gl].concat()
    };
    let v = inputs(n, 4);
    let direction = split(&v);
    let hvp = |g: &gmm::Input| {
        gmm::gmm_objective_hvp(
            &g.alpha,
            &g.mu,
            &g.q,
            &g.l,
            &g.x,
            d,
            m,
            gamma,
            direction.clone(),
        )
    };
    let (value, _, (ha, hm, hq, hl)) = hvp(&g);
    assert_eq!(
        value,
        gmm::gmm_objective(&g.alpha, &g.mu, &g.q, &g.l, &g.x, d, m, gamma)
    );
    let hv = [ha, hm, hq, hl].concat();
    assert_close(
        "gmm_objective_hvp against central differences",
        &hv,
        &fd_hvp(grad, &flat, &v),
        1e-5,
    );

    let mut buffers = (
        vec![0.0; sizes[0]],
        vec![0.0; sizes[1]],
        vec![0.0; sizes[2]],
        vec![0.0; sizes[3]],
    );
    group.bench_function("grad_into", |b| {
        b.iter(|| {
            let g = black_box(&g);
            let grad = (
                &mut buffers.0[..],
                &mut buffers.1[..],
                &mut buffers.2[..],
                &mut buffers.3[..],
            );
            gmm::gmm_objective_grad_into(&g.alpha, &g.mu, &g.q, &g.l, &g.x, d, m, gamma, grad)
        })
    });
    group.bench_function("hvp", |b| b.iter(|| hvp(black_box(&g))));
}

fn bench_hessian(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let n = 10;
    let x = inputs(n, 3);
    // The full Hessian by Dual<Dual<f64>>: one pass per entry of the upper triangle.
    let unit = |i: usize| {
        (0..n)
            .map(|j| f64::from(u8::from(i == j)))
            .collect::<Vec<_>>()
    };
    let units: Vec<Vec<f64>> = (0..n).map(unit).collect();
    let dual_dual_hessian = |x: &[f64]| {
        let mut h = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in i..n {
                let hij = dense_generic(&dual_dual(x, &units[i], &units[j])).eps.eps;
                h[i][j] = hij;
                h[j][i] = hij;
            }
        }
        h
    };
    let (value, grad, hessian) = dense_hessian(&x);
    assert_eq!(value, dense(&x));
    assert_close("dense_hessian's gradient", &grad, &dense_grad(&x).1, 1e-12);
    let reference = dual_dual_hessian(&x);
    for i in 0..n {
        assert_close(
            "dense_hessian against Dual<Dual<f64>>",
            &hessian[i],
            &reference[i],
            1e-12,
        );
        let fd = fd_hvp(|x| dense_grad(x).1, &x, &units[i]);
        assert_close(
            "dense_hessian against central differences",
            &hessian[i],
            &fd,
            1e-6,
        );
    }

    let mut g = vec![0.0; n];
    group.bench_function("primal", |b| b.iter(|| dense(black_box(&x))));
    group.bench_function("grad_into", |b| {
        b.iter(|| dense_grad_into(black_box(&x), &mut g))
    });
    group.bench_function("hessian", |b| b.iter(|| dense_hessian(black_box(&x))));
    group.bench_function("dual_dual_hessian", |b| {
        b.iter(|| dual_dual_hessian(black_box(&x)))
    });
}

fn print_summary(run_start: SystemTime) {
    let Some(dir) = criterion_dir() else {
        println!("\nratio summary: criterion's output folder not found");
        return;
    };
    let time = |group: &str, entry: &str| measured_median(&dir, group, entry, run_start);
    let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
    let verdict = |r: Option<f64>, target: f64| match r {
        Some(r) if r <= target => "ok",
        Some(_) => "MISSED",
        None => "-",
    };
    let show = |v: Option<f64>| v.map_or("-".to_string(), format_time);
    println!("\nRatio summary (median time per call, this run):");
    let grad = time(HVP_GROUP, "grad_into");
    let hvp = time(HVP_GROUP, "hvp");
    let hvp_vs_grad = ratio(hvp, grad);
    println!(
        "{HVP_GROUP}: grad_into {}, hvp {}, hand_hvp {}, dual_dual_vhv {}; hvp / grad_into {} (target <= {HVP_TARGET}: {}), hvp / hand_hvp {}, dual_dual_vhv / grad_into {}",
        show(grad),
        show(hvp),
        show(time(HVP_GROUP, "hand_hvp")),
        show(time(HVP_GROUP, "dual_dual_vhv")),
        format_ratio(hvp_vs_grad),
        verdict(hvp_vs_grad, HVP_TARGET),
        format_ratio(ratio(hvp, time(HVP_GROUP, "hand_hvp"))),
        format_ratio(ratio(time(HVP_GROUP, "dual_dual_vhv"), grad)),
    );
    let gmm_grad = time(GMM_GROUP, "grad_into");
    let gmm_hvp = time(GMM_GROUP, "hvp");
    let gmm_ratio = ratio(gmm_hvp, gmm_grad);
    println!(
        "{GMM_GROUP}: grad_into {}, hvp {}; hvp / grad_into {} (target <= {HVP_TARGET}: {})",
        show(gmm_grad),
        show(gmm_hvp),
        format_ratio(gmm_ratio),
        verdict(gmm_ratio, HVP_TARGET),
    );
    let grad = time(HESSIAN_GROUP, "grad_into");
    let hessian = time(HESSIAN_GROUP, "hessian");
    let hessian_vs_grad = ratio(hessian, grad);
    println!(
        "{HESSIAN_GROUP}: grad_into {}, hessian {}, dual_dual_hessian {}; hessian / grad_into {} (target <= {HESSIAN_TARGET}: {}), dual_dual_hessian / hessian {}",
        show(grad),
        show(hessian),
        show(time(HESSIAN_GROUP, "dual_dual_hessian")),
        format_ratio(hessian_vs_grad),
        verdict(hessian_vs_grad, HESSIAN_TARGET),
        format_ratio(ratio(time(HESSIAN_GROUP, "dual_dual_hessian"), hessian)),
    );
}

fn main() {
    let run_start = SystemTime::now();
    let args: Vec<String> = std::env::args().collect();
    let measuring = !args
        .iter()
        .any(|a| matches!(a.as_str(), "--test" | "--list" | "--profile-time"));
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .configure_from_args();
    type Bench = fn(&mut BenchmarkGroup<'_, criterion::measurement::WallTime>);
    let benches: [(&str, Bench); 3] = [
        (HVP_GROUP, bench_hvp),
        (GMM_GROUP, bench_gmm_hvp),
        (HESSIAN_GROUP, bench_hessian),
    ];
    for (name, bench) in benches {
        let mut group = c.benchmark_group(name);
        bench(&mut group);
        group.finish();
    }
    c.final_summary();
    if measuring {
        print_summary(run_start);
    }
}
