//! Issue 9 benchmarks: functions written as a user writes them (`user_forms/autodiff.rs`), their
//! `_grad_into` and `_grad` against a hand-written reverse sweep that writes into the same buffers
//! (`user_forms/hand.rs`) and against the function itself, all measured in one run. See
//! `benches/README.md`.
//!
//! Before any timing, each group checks once that the hand-written gradient agrees with central
//! differences (`autodiff::check_gradient`) and that `_grad_into` and `_grad` agree with it, so no
//! wrong gradient is timed. After the run, a table of ratios is printed from criterion's estimates.

#[path = "user_forms/autodiff.rs"]
mod user;

#[path = "user_forms/hand.rs"]
mod hand;

#[path = "common/estimates.rs"]
mod estimates;

#[path = "common/gmm_data.rs"]
mod gmm_data;

#[path = "common/rng.rs"]
mod rng;

use autodiff::check_gradient;
use autodiff_gradbench::evals::gmm;
use criterion::{BenchmarkGroup, Criterion};
use estimates::{criterion_dir, format_ratio, format_time, measured_median};
use gmm_data::gmm_instance;
use rng::Rng;
use std::hint::black_box;
use std::time::{Duration, SystemTime};

const ENTRIES: [&str; 4] = ["primal", "hand_written", "grad_into", "grad"];

/// The groups, in the order they run.
const GROUPS: [&str; 8] = [
    "rosenbrock_plus_assign_n1000",
    "softmax_logsumexp_d64_k10_m256",
    "gmm_d2_k5_n1000",
    "gmm_d10_k5_n1000",
    "rk4_rhs_calls_1000_steps",
    "mlp_d8_h32_m256",
    "logistic_rows_d10_m1000",
    "logistic_plain_rows_d10_m1000",
];

/// Target of issue 9: `grad_into` at most this many times the hand-written sweep.
const TARGET_VS_HAND: f64 = 1.1;

/// Checks, before timing: `value` and `grad` (from the hand-written sweep) against the primal and
/// central differences of `f` at `x`; `others` (from `_grad_into` and `_grad`) against `grad`.
fn check(
    group: &str,
    f: impl Fn(&[f64]) -> f64,
    x: &[f64],
    (value, grad): (f64, &[f64]),
    others: &[(&str, f64, &[f64])],
) {
    let primal = f(x);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-10 * b.abs().max(1.0);
    assert!(
        close(value, primal),
        "{group} hand_written: value {value}, primal {primal}"
    );
    let fd = check_gradient(&f, x, grad);
    assert!(
        fd.is_ok(1e-5),
        "{group} hand_written against central differences: {fd}"
    );
    let scale = grad.iter().fold(1.0_f64, |s, g| s.max(g.abs()));
    for (name, other_value, other) in others {
        assert!(
            close(*other_value, primal),
            "{group} {name}: value {other_value}, primal {primal}"
        );
        let worst = other
            .iter()
            .zip(grad)
            .map(|(a, b)| (a - b).abs() / scale)
            .fold(0.0, f64::max);
        assert!(
            worst <= 1e-10,
            "{group} {name} differs from hand_written by {worst:e}"
        );
    }
}

fn bench_rosenbrock(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let mut rng = Rng(1);
    let x: Vec<f64> = (0..1000)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 } + rng.uniform(-0.1, 0.1))
        .collect();
    let mut g_hand = vec![0.0; x.len()];
    let mut g_into = vec![0.0; x.len()];
    let value = hand::rosenbrock(&x, &mut g_hand);
    let into_value = user::rosenbrock_grad_into(&x, &mut g_into);
    let (grad_value, grad) = user::rosenbrock_grad(&x);
    check(
        "rosenbrock",
        user::rosenbrock,
        &x,
        (value, &g_hand),
        &[
            ("grad_into", into_value, &g_into),
            ("grad", grad_value, &grad),
        ],
    );

    group.bench_function("primal", |b| b.iter(|| user::rosenbrock(black_box(&x))));
    group.bench_function("hand_written", |b| {
        b.iter(|| hand::rosenbrock(black_box(&x), &mut g_hand))
    });
    group.bench_function("grad_into", |b| {
        b.iter(|| user::rosenbrock_grad_into(black_box(&x), &mut g_into))
    });
    group.bench_function("grad", |b| b.iter(|| user::rosenbrock_grad(black_box(&x))));
}

fn bench_softmax(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let (d, k, m) = (64, 10, 256);
    let mut rng = Rng(2);
    let w = rng.vec(k * d, -0.5, 0.5);
    let data = rng.vec(m * d, -1.0, 1.0);
    let labels: Vec<usize> = (0..m)
        .map(|_| (rng.uniform(0.0, k as f64)) as usize)
        .collect();
    let loss = |w: &[f64]| user::softmax_cross_entropy(w, &data, &labels, d, k);
    let mut g_hand = vec![0.0; w.len()];
    let mut g_into = vec![0.0; w.len()];
    let value = hand::softmax_cross_entropy(&w, &data, &labels, d, k, &mut g_hand);
    let into_value = user::softmax_cross_entropy_grad_into(&w, &data, &labels, d, k, &mut g_into);
    let (grad_value, grad) = user::softmax_cross_entropy_grad(&w, &data, &labels, d, k);
    check(
        "softmax",
        loss,
        &w,
        (value, &g_hand),
        &[
            ("grad_into", into_value, &g_into),
            ("grad", grad_value, &grad),
        ],
    );

    group.bench_function("primal", |b| b.iter(|| loss(black_box(&w))));
    group.bench_function("hand_written", |b| {
        b.iter(|| hand::softmax_cross_entropy(black_box(&w), &data, &labels, d, k, &mut g_hand))
    });
    group.bench_function("grad_into", |b| {
        b.iter(|| {
            user::softmax_cross_entropy_grad_into(black_box(&w), &data, &labels, d, k, &mut g_into)
        })
    });
    group.bench_function("grad", |b| {
        b.iter(|| user::softmax_cross_entropy_grad(black_box(&w), &data, &labels, d, k))
    });
}

fn bench_gmm(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, file: &str) {
    let input = gmm_instance(file);
    let mut g_hand = gmm::Gradient::zeros_like(&input);
    let mut g_into = gmm::Gradient::zeros_like(&input);
    let value = hand::gmm_objective(&input, &mut g_hand);
    let into_value = g_into.compute(&input);
    let flatten = |g: &gmm::Gradient| [&g.alpha[..], &g.mu, &g.q, &g.l].concat();
    let sizes = [input.alpha.len(), input.mu.len(), input.q.len()];
    let objective = |p: &[f64]| {
        let (alpha, rest) = p.split_at(sizes[0]);
        let (mu, rest) = rest.split_at(sizes[1]);
        let (q, l) = rest.split_at(sizes[2]);
        gmm::gmm_objective(alpha, mu, q, l, &input.x, input.d, input.m, input.gamma)
    };
    let params = [&input.alpha[..], &input.mu, &input.q, &input.l].concat();
    let grad_call = || {
        gmm::gmm_objective_grad(
            &input.alpha,
            &input.mu,
            &input.q,
            &input.l,
            &input.x,
            input.d,
            input.m,
            input.gamma,
        )
    };
    let (grad_value, (a, mu, q, l)) = grad_call();
    check(
        file,
        objective,
        &params,
        (value, &flatten(&g_hand)),
        &[
            ("grad_into", into_value, &flatten(&g_into)),
            ("grad", grad_value, &[a, mu, q, l].concat()),
        ],
    );

    group.bench_function("primal", |b| b.iter(|| black_box(&input).objective()));
    group.bench_function("hand_written", |b| {
        b.iter(|| hand::gmm_objective(black_box(&input), &mut g_hand))
    });
    group.bench_function("grad_into", |b| {
        b.iter(|| g_into.compute(black_box(&input)))
    });
    group.bench_function("grad", |b| b.iter(grad_call));
}

fn bench_rk4(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let p = [1.5, 1.0, 1.0, 3.0, 1.0, 1.0];
    let steps = 1000;
    let mut g_hand = [0.0; 6];
    let mut g_into = [0.0; 6];
    let value = hand::rk4(&p, steps, &mut g_hand);
    let into_value = user::rk4_grad_into(&p, steps, &mut g_into);
    let (grad_value, grad) = user::rk4_grad(&p, steps);
    check(
        "rk4",
        |p| user::rk4(p, steps),
        &p,
        (value, &g_hand),
        &[
            ("grad_into", into_value, &g_into),
            ("grad", grad_value, &grad),
        ],
    );

    group.bench_function("primal", |b| b.iter(|| user::rk4(black_box(&p), steps)));
    group.bench_function("hand_written", |b| {
        b.iter(|| hand::rk4(black_box(&p), steps, &mut g_hand))
    });
    group.bench_function("grad_into", |b| {
        b.iter(|| user::rk4_grad_into(black_box(&p), steps, &mut g_into))
    });
    group.bench_function("grad", |b| b.iter(|| user::rk4_grad(black_box(&p), steps)));
}

fn bench_mlp(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let (d_in, hidden, m) = (8, 32, 256);
    let mut rng = Rng(3);
    let w1 = rng.vec(hidden * d_in, -0.5, 0.5);
    let b1 = rng.vec(hidden, -0.1, 0.1);
    let w2 = rng.vec(hidden, -0.5, 0.5);
    let b2 = 0.1;
    let xs = rng.vec(m * d_in, -1.0, 1.0);
    let ys = rng.vec(m, -1.0, 1.0);
    let (mut hw1, mut hb1, mut hw2, mut hb2) = (
        vec![0.0; w1.len()],
        vec![0.0; hidden],
        vec![0.0; hidden],
        0.0,
    );
    let (mut iw1, mut ib1, mut iw2, mut ib2) = (
        vec![0.0; w1.len()],
        vec![0.0; hidden],
        vec![0.0; hidden],
        0.0,
    );
    let hand_call = |hw1: &mut [f64], hb1: &mut [f64], hw2: &mut [f64], hb2: &mut f64| {
        let g = hand::MlpGradient {
            w1: hw1,
            b1: hb1,
            w2: hw2,
            b2: hb2,
        };
        hand::mlp_loss(black_box(&w1), &b1, &w2, b2, &xs, &ys, g)
    };
    let value = hand_call(&mut hw1, &mut hb1, &mut hw2, &mut hb2);
    let into_value = user::mlp_loss_grad_into(
        &w1,
        &b1,
        &w2,
        b2,
        &xs,
        &ys,
        (&mut iw1, &mut ib1, &mut iw2, &mut ib2),
    );
    let (grad_value, (gw1, gb1, gw2, gb2)) = user::mlp_loss_grad(&w1, &b1, &w2, b2, &xs, &ys);
    let split = [w1.len(), hidden, hidden];
    let loss = |p: &[f64]| {
        let (w1, rest) = p.split_at(split[0]);
        let (b1, rest) = rest.split_at(split[1]);
        let (w2, b2) = rest.split_at(split[2]);
        user::mlp_loss(w1, b1, w2, b2[0], &xs, &ys)
    };
    check(
        "mlp",
        loss,
        &[&w1[..], &b1, &w2, &[b2]].concat(),
        (value, &[&hw1[..], &hb1, &hw2, &[hb2]].concat()),
        &[
            (
                "grad_into",
                into_value,
                &[&iw1[..], &ib1, &iw2, &[ib2]].concat(),
            ),
            ("grad", grad_value, &[&gw1[..], &gb1, &gw2, &[gb2]].concat()),
        ],
    );

    group.bench_function("primal", |b| {
        b.iter(|| user::mlp_loss(black_box(&w1), &b1, &w2, b2, &xs, &ys))
    });
    group.bench_function("hand_written", |b| {
        b.iter(|| hand_call(&mut hw1, &mut hb1, &mut hw2, &mut hb2))
    });
    group.bench_function("grad_into", |b| {
        b.iter(|| {
            user::mlp_loss_grad_into(
                black_box(&w1),
                &b1,
                &w2,
                b2,
                &xs,
                &ys,
                (&mut iw1, &mut ib1, &mut iw2, &mut ib2),
            )
        })
    });
    group.bench_function("grad", |b| {
        b.iter(|| user::mlp_loss_grad(black_box(&w1), &b1, &w2, b2, &xs, &ys))
    });
}

fn bench_logistic(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let (d, m) = (10, 1000);
    let mut rng = Rng(6);
    let w = rng.vec(d, -0.5, 0.5);
    let xs: Vec<Vec<f64>> = (0..m).map(|_| rng.vec(d, -1.0, 1.0)).collect();
    let ys: Vec<f64> = (0..m).map(|k| (k % 2) as f64).collect();
    let (mut g_hand, mut g_into) = (vec![0.0; d], vec![0.0; d]);
    let value = hand::logistic(&w, &xs, &ys, &mut g_hand);
    let into_value = user::logistic_grad_into(&w, &xs, &ys, &mut g_into);
    let (grad_value, grad) = user::logistic_grad(&w, &xs, &ys);
    check(
        "logistic",
        |w| user::logistic(w, &xs, &ys),
        &w,
        (value, &g_hand),
        &[
            ("grad_into", into_value, &g_into),
            ("grad", grad_value, &grad),
        ],
    );
    group.bench_function("primal", |b| {
        b.iter(|| user::logistic(black_box(&w), &xs, &ys))
    });
    group.bench_function("hand_written", |b| {
        b.iter(|| hand::logistic(black_box(&w), &xs, &ys, &mut g_hand))
    });
    group.bench_function("grad_into", |b| {
        b.iter(|| user::logistic_grad_into(black_box(&w), &xs, &ys, &mut g_into))
    });
    group.bench_function("grad", |b| {
        b.iter(|| user::logistic_grad(black_box(&w), &xs, &ys))
    });
}

/// `logistic` with a callee that has no `wrt` (`predict_plain`), as most users write it.
fn bench_logistic_plain(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let (d, m) = (10, 1000);
    let mut rng = Rng(6);
    let w = rng.vec(d, -0.5, 0.5);
    let xs: Vec<Vec<f64>> = (0..m).map(|_| rng.vec(d, -1.0, 1.0)).collect();
    let ys: Vec<f64> = (0..m).map(|k| (k % 2) as f64).collect();
    let (mut g_hand, mut g_into) = (vec![0.0; d], vec![0.0; d]);
    let value = hand::logistic(&w, &xs, &ys, &mut g_hand);
    let into_value = user::logistic_plain_grad_into(&w, &xs, &ys, &mut g_into);
    let (grad_value, grad) = user::logistic_plain_grad(&w, &xs, &ys);
    check(
        "logistic_plain",
        |w| user::logistic_plain(w, &xs, &ys),
        &w,
        (value, &g_hand),
        &[
            ("grad_into", into_value, &g_into),
            ("grad", grad_value, &grad),
        ],
    );
    group.bench_function("primal", |b| {
        b.iter(|| user::logistic_plain(black_box(&w), &xs, &ys))
    });
    group.bench_function("hand_written", |b| {
        b.iter(|| hand::logistic(black_box(&w), &xs, &ys, &mut g_hand))
    });
    group.bench_function("grad_into", |b| {
        b.iter(|| user::logistic_plain_grad_into(black_box(&w), &xs, &ys, &mut g_into))
    });
    group.bench_function("grad", |b| {
        b.iter(|| user::logistic_plain_grad(black_box(&w), &xs, &ys))
    });
}

fn print_summary(run_start: SystemTime) {
    let Some(dir) = criterion_dir() else {
        println!("\nratio summary: criterion's output folder not found");
        return;
    };
    let mut lines = Vec::new();
    for group in GROUPS {
        let t: Vec<Option<f64>> = ENTRIES
            .iter()
            .map(|entry| measured_median(&dir, group, entry, run_start))
            .collect();
        if t.iter().all(Option::is_none) {
            continue;
        }
        let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
        let into_vs_hand = ratio(t[2], t[1]);
        let verdict = match into_vs_hand {
            Some(r) if r <= TARGET_VS_HAND => "ok",
            Some(_) => "MISSED",
            None => "-",
        };
        let time = |v: Option<f64>| v.map_or("-".to_string(), format_time);
        lines.push(format!(
            "{group:<32} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}  {verdict}",
            time(t[0]),
            time(t[1]),
            time(t[2]),
            time(t[3]),
            format_ratio(into_vs_hand),
            format_ratio(ratio(t[3], t[0])),
            format_ratio(ratio(t[1], t[0])),
        ));
    }
    if lines.is_empty() {
        println!("\nratio summary: no benchmark of this file was measured in this run");
        return;
    }
    println!("\nRatio summary (median time per call, this run; target of issue 9: grad_into / hand <= {TARGET_VS_HAND}):");
    println!(
        "{:<32} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "problem", "primal", "hand", "grad_into", "grad", "into/hand", "grad/primal", "hand/primal"
    );
    for line in &lines {
        println!("{line}");
    }
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
    let benches: [Bench; 8] = [
        bench_rosenbrock,
        bench_softmax,
        |g| bench_gmm(g, "gmm_d2_K5.txt"),
        |g| bench_gmm(g, "gmm_d10_K5.txt"),
        bench_rk4,
        bench_mlp,
        bench_logistic,
        bench_logistic_plain,
    ];
    for (name, bench) in GROUPS.iter().zip(benches) {
        let mut group = c.benchmark_group(*name);
        bench(&mut group);
        group.finish();
    }
    c.final_summary();
    if measuring {
        print_summary(run_start);
    }
}
