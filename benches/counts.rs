//! Instruction counts of the user forms of `user_forms.rs` (issue 9), which the load of the machine does not
//! move: each entry (`primal`, `hand_written`, `grad_into`) runs once and eleven times under callgrind, and
//! a tenth of the difference is one call's count. Ratios of counts are not ratios of times (a cache miss or
//! a dependent chain costs more than an instruction), but a change that removes work shows here exactly,
//! where timings on this shared machine move by 30 %.
//!
//! A second table counts issue 8's second-order entries of `higher.rs` against `grad_into`.
//!
//! `cargo bench --bench counts` (needs `valgrind`; about two minutes). `cargo bench --bench counts -- rk4`
//! counts the groups whose name contains `rk4`. The bench runs itself under valgrind as
//! `<this executable> --run <group> <entry> <calls>`.

#[path = "user_forms/autodiff.rs"]
mod user;

#[path = "user_forms/hand.rs"]
mod hand;

#[path = "common/gmm_data.rs"]
mod gmm_data;

#[path = "common/rng.rs"]
mod rng;

// Only the generated items are counted here; `higher.rs` uses the rest.
#[allow(dead_code)]
#[path = "higher/functions.rs"]
mod functions;

use autodiff_gradbench::evals::gmm;
use gmm_data::gmm_instance;
use rng::Rng;
use std::hint::black_box;
use std::process::Command;

const GROUPS: [&str; 8] = [
    "rosenbrock",
    "softmax",
    "gmm_d2",
    "gmm_d10",
    "rk4",
    "mlp",
    "logistic",
    "logistic_plain",
];
const ENTRIES: [&str; 3] = ["primal", "hand_written", "grad_into"];

/// The groups of `higher.rs` (issue 8's targets: `f_hvp` at most 3x `f_grad`, `f_hessian` of 10 inputs at
/// most 12x), each with its first-order entry, its second-order entry and the target ratio.
const HIGHER: [(&str, &str, f64); 3] = [
    ("hvp_rosenbrock_n1000", "hvp", 3.0),
    ("hvp_gmm_d2", "hvp", 3.0),
    ("hessian_dense_n10", "hessian", 12.0),
];

/// Runs `entry` of `group` `calls` times; returns a sum of the results, so nothing is optimised away.
fn run(group: &str, entry: &str, calls: usize) -> f64 {
    let mut total = 0.0;
    match group {
        "rosenbrock" => {
            let x = Rng(1).vec(1000, -1.5, 1.5);
            let mut g = vec![0.0; x.len()];
            for _ in 0..calls {
                total += match entry {
                    "primal" => user::rosenbrock(black_box(&x)),
                    "hand_written" => hand::rosenbrock(black_box(&x), &mut g),
                    _ => user::rosenbrock_grad_into(black_box(&x), &mut g),
                };
            }
        }
        "softmax" => {
            let (d, k, m) = (64, 10, 256);
            let mut rng = Rng(2);
            let w = rng.vec(k * d, -0.5, 0.5);
            let data = rng.vec(m * d, -1.0, 1.0);
            let labels: Vec<usize> = (0..m)
                .map(|_| (rng.uniform(0.0, k as f64)) as usize)
                .collect();
            let mut g = vec![0.0; w.len()];
            for _ in 0..calls {
                let w = black_box(&w);
                total += match entry {
                    "primal" => user::softmax_cross_entropy(w, &data, &labels, d, k),
                    "hand_written" => hand::softmax_cross_entropy(w, &data, &labels, d, k, &mut g),
                    _ => user::softmax_cross_entropy_grad_into(w, &data, &labels, d, k, &mut g),
                };
            }
        }
        "gmm_d2" | "gmm_d10" => {
            let file = if group == "gmm_d2" {
                "gmm_d2_K5.txt"
            } else {
                "gmm_d10_K5.txt"
            };
            let input = gmm_instance(file);
            let mut g = gmm::Gradient::zeros_like(&input);
            for _ in 0..calls {
                let input = black_box(&input);
                total += match entry {
                    "primal" => input.objective(),
                    "hand_written" => hand::gmm_objective(input, &mut g),
                    _ => g.compute(input),
                };
            }
        }
        "rk4" => {
            let p = [1.5, 1.0, 1.0, 3.0, 1.0, 1.0];
            let mut g = [0.0; 6];
            for _ in 0..calls {
                let p = black_box(&p);
                total += match entry {
                    "primal" => user::rk4(p, 1000),
                    "hand_written" => hand::rk4(p, 1000, &mut g),
                    _ => user::rk4_grad_into(p, 1000, &mut g),
                };
            }
        }
        "mlp" => {
            let (d_in, hidden, m) = (8, 32, 256);
            let mut rng = Rng(3);
            let w1 = rng.vec(hidden * d_in, -0.5, 0.5);
            let b1 = rng.vec(hidden, -0.1, 0.1);
            let w2 = rng.vec(hidden, -0.5, 0.5);
            let b2 = 0.1;
            let xs = rng.vec(m * d_in, -1.0, 1.0);
            let ys = rng.vec(m, -1.0, 1.0);
            let (mut gw1, mut gb1, mut gw2, mut gb2) = (
                vec![0.0; w1.len()],
                vec![0.0; hidden],
                vec![0.0; hidden],
                0.0,
            );
            for _ in 0..calls {
                let w1 = black_box(&w1);
                total += match entry {
                    "primal" => user::mlp_loss(w1, &b1, &w2, b2, &xs, &ys),
                    "hand_written" => {
                        let g = hand::MlpGradient {
                            w1: &mut gw1,
                            b1: &mut gb1,
                            w2: &mut gw2,
                            b2: &mut gb2,
                        };
                        hand::mlp_loss(w1, &b1, &w2, b2, &xs, &ys, g)
                    }
                    _ => user::mlp_loss_grad_into(
                        w1,
                        &b1,
                        &w2,
                        b2,
                        &xs,
                        &ys,
                        (&mut gw1, &mut gb1, &mut gw2, &mut gb2),
                    ),
                };
            }
        }
        "logistic" | "logistic_plain" => {
            let plain = group == "logistic_plain";
            let (d, m) = (10, 1000);
            let mut rng = Rng(6);
            let w = rng.vec(d, -0.5, 0.5);
            let xs: Vec<Vec<f64>> = (0..m).map(|_| rng.vec(d, -1.0, 1.0)).collect();
            let ys: Vec<f64> = (0..m).map(|k| (k % 2) as f64).collect();
            let mut g = vec![0.0; d];
            for _ in 0..calls {
                let w = black_box(&w);
                total += match entry {
                    "primal" if plain => user::logistic_plain(w, &xs, &ys),
                    "primal" => user::logistic(w, &xs, &ys),
                    "hand_written" => hand::logistic(w, &xs, &ys, &mut g),
                    _ if plain => user::logistic_plain_grad_into(w, &xs, &ys, &mut g),
                    _ => user::logistic_grad_into(w, &xs, &ys, &mut g),
                };
            }
        }
        "hvp_rosenbrock_n1000" => {
            let x = Rng(7).vec(1000, -1.5, 1.5);
            let v = Rng(8).vec(1000, -1.0, 1.0);
            let mut g = vec![0.0; x.len()];
            for _ in 0..calls {
                let x = black_box(&x);
                total += match entry {
                    "grad_into" => functions::rosenbrock_grad_into(x, &mut g),
                    _ => {
                        let (value, _, hv) = functions::rosenbrock_hvp(x, black_box(v.clone()));
                        value + hv[0]
                    }
                };
            }
        }
        "hvp_gmm_d2" => {
            let g = gmm_instance("gmm_d2_K5.txt");
            let (d, m, gamma) = (g.d, g.m, g.gamma);
            let mut rng = Rng(9);
            let direction = (
                rng.vec(g.alpha.len(), -1.0, 1.0),
                rng.vec(g.mu.len(), -1.0, 1.0),
                rng.vec(g.q.len(), -1.0, 1.0),
                rng.vec(g.l.len(), -1.0, 1.0),
            );
            let mut b = gmm::Gradient::zeros_like(&g);
            for _ in 0..calls {
                let g = black_box(&g);
                total += match entry {
                    "grad_into" => b.compute(g),
                    _ => {
                        let (value, _, hv) = gmm::gmm_objective_hvp(
                            &g.alpha,
                            &g.mu,
                            &g.q,
                            &g.l,
                            &g.x,
                            d,
                            m,
                            gamma,
                            direction.clone(),
                        );
                        value + hv.0[0]
                    }
                };
            }
        }
        "hessian_dense_n10" => {
            let x = Rng(10).vec(10, -1.0, 1.0);
            let mut g = vec![0.0; x.len()];
            for _ in 0..calls {
                let x = black_box(&x);
                total += match entry {
                    "grad_into" => functions::dense_grad_into(x, &mut g),
                    _ => {
                        let (value, _, h) = functions::dense_hessian(x);
                        value + h[0][0]
                    }
                };
            }
        }
        other => panic!("no group {other}"),
    }
    total
}

/// One call's instructions: those of eleven calls less those of one, over ten.
fn per_call(group: &str, entry: &str) -> Option<u64> {
    let once = collected(group, entry, 1)?;
    let eleven = collected(group, entry, 11)?;
    Some(eleven.saturating_sub(once) / 10)
}

/// The instructions callgrind counts for `calls` calls of `entry` (and the program around them).
fn collected(group: &str, entry: &str, calls: usize) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .args(["--run", group, entry, &calls.to_string()])
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = stderr.lines().find(|l| l.contains("Collected"))?;
    line.split(':')
        .next_back()?
        .trim()
        .replace(',', "")
        .parse()
        .ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--run") {
        let calls = args[4].parse().expect("a number of calls");
        println!("{}", run(&args[2], &args[3], calls));
        return;
    }
    // `cargo bench` passes `--bench`; any other argument filters the groups by name.
    let filter = args[1..].iter().find(|a| !a.starts_with("--"));
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("counts: valgrind is not installed; nothing to count");
        return;
    }
    println!(
        "{:<12} {:>14} {:>14} {:>14} {:>10} {:>10}",
        "group", "primal", "hand_written", "grad_into", "/ hand", "/ primal"
    );
    for group in GROUPS {
        if filter.is_some_and(|f| !group.contains(f.as_str())) {
            continue;
        }
        let counts: Vec<Option<u64>> = ENTRIES.iter().map(|e| per_call(group, e)).collect();
        let show = |c: Option<u64>| c.map_or("?".to_string(), |c| c.to_string());
        let ratio = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) if b > 0 => format!("{:.2}", a as f64 / b as f64),
            _ => "?".to_string(),
        };
        println!(
            "{:<12} {:>14} {:>14} {:>14} {:>10} {:>10}",
            group,
            show(counts[0]),
            show(counts[1]),
            show(counts[2]),
            ratio(counts[2], counts[1]),
            ratio(counts[2], counts[0]),
        );
    }
    println!(
        "\n{:<22} {:>14} {:>14} {:>12} {:>8}",
        "second order", "grad_into", "second", "/ grad_into", "target"
    );
    for (group, entry, target) in HIGHER {
        if filter.is_some_and(|f| !group.contains(f.as_str())) {
            continue;
        }
        let (first, second) = (per_call(group, "grad_into"), per_call(group, entry));
        let ratio = match (first, second) {
            (Some(a), Some(b)) if a > 0 => format!("{:.2}", b as f64 / a as f64),
            _ => "?".to_string(),
        };
        let show = |c: Option<u64>| c.map_or("?".to_string(), |c| c.to_string());
        println!(
            "{:<22} {:>14} {:>14} {:>12} {:>7}x",
            format!("{group} ({entry})"),
            show(first),
            show(second),
            ratio,
            target
        );
    }
}
