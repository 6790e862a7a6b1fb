//! Times every implemented eval through the tool's own protocol handler, on inputs of the sizes
//! GradBench's evals send by default (a subset, generated here with a fixed seed, as GradBench
//! generates them), and prints, for each workload, the median time of the primal, of the derivative,
//! and their ratio.
//!
//! `cargo run --release -p autodiff-gradbench --example timings [min_seconds] [MANUAL_BIN_DIR]`
//!
//! With `MANUAL_BIN_DIR`, a folder holding GradBench's C++ `manual` tool built per eval
//! (`tools/manual`'s Makefile makes `bin/lse`, `bin/gmm`, ..), each workload is also run there: its
//! output is compared with ours as GradBench's validator compares them (`comparison.py`: relative
//! difference `|a - b| / max(1, |a| + |b|)` at most 1e-4 in every number), and its median times are
//! printed beside ours.

use autodiff_gradbench::respond;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small deterministic generator (SplitMix64): uniform numbers in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| lo + (hi - lo) * self.next()).collect()
    }

    fn rows(&mut self, rows: usize, cols: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
        (0..rows).map(|_| self.vec(cols, lo, hi)).collect()
    }
}

/// The median of the `evaluate` timings of an answer, in nanoseconds.
fn median_ns(answer: &Value) -> f64 {
    assert_eq!(answer["success"], true, "{answer}");
    let mut t: Vec<f64> = answer["timings"]
        .as_array()
        .expect("timings")
        .iter()
        .map(|t| t["nanoseconds"].as_f64().expect("nanoseconds"))
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Where `expected` and `actual` differ, as GradBench's `compare_json_objects` finds it.
fn mismatches(expected: &Value, actual: &Value, path: &str, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            let difference = (a - b).abs() / (a.abs() + b.abs()).max(1.0);
            if difference.is_nan() || difference > 1e-4 {
                out.push(format!("{path}: {a} != {b}"));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                mismatches(x, y, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Object(a), Value::Object(b)) if a.len() == b.len() => {
            for (key, x) in a {
                match b.get(key) {
                    Some(y) => mismatches(x, y, &format!("{path}.{key}"), out),
                    None => out.push(format!("{path}.{key} is missing")),
                }
            }
        }
        _ if expected == actual => {}
        _ => out.push(format!("{path}: shapes differ")),
    }
}

/// Runs GradBench's C++ `manual` tool on `input`: its output and median time (ns).
fn run_manual(bin: &Path, module: &str, function: &str, input: &Value) -> (Value, f64) {
    let file = std::env::temp_dir().join(format!("autodiff-gradbench-{module}.json"));
    std::fs::write(&file, input.to_string()).expect("writes the input file");
    let out = Command::new(bin.join(module))
        .arg(&file)
        .arg(function)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", bin.join(module).display()));
    assert!(out.status.success(), "manual {module} {function} failed");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut lines = text.lines();
    let output: Value = serde_json::from_str(lines.next().expect("an output line")).expect("JSON");
    let timings: Vec<Value> = lines
        .map(|l| serde_json::from_str(l).expect("a timing line"))
        .filter(|t: &Value| t["name"] == "evaluate")
        .collect();
    let answer = json!({ "success": true, "timings": timings });
    (output, median_ns(&answer))
}

fn format_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

fn main() {
    let min_seconds: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("min_seconds is a number"))
        .unwrap_or(0.5);
    let manual: Option<PathBuf> = std::env::args().nth(2).map(PathBuf::from);
    let mut rng = Rng(31337);
    let mut workloads: Vec<(&str, [&str; 2], String, Value)> = Vec::new();

    for n in [10_000, 1_280_000] {
        let input = json!({ "x": rng.vec(n, -100.0, 100.0) });
        workloads.push(("lse", ["primal", "gradient"], format!("n={n}"), input));
    }
    for n in [1024, 16392] {
        let input = json!({ "x": rng.vec(128, -1.0, 1.0), "n": n });
        workloads.push((
            "llsq",
            ["primal", "gradient"],
            format!("m=128,n={n}"),
            input,
        ));
    }
    for (n, s) in [(1000, 100), (100_000, 10)] {
        let input = json!({ "x": rng.vec(n, 0.0, 1.0), "s": s });
        workloads.push(("ode", ["primal", "gradient"], format!("n={n},s={s}"), input));
    }
    for ell in [7, 11] {
        let input = json!({ "A": rng.vec(ell * ell, 0.0, 1.0), "ell": ell });
        workloads.push(("det", ["primal", "gradient"], format!("ell={ell}"), input));
    }
    for (k, n, d) in [(10, 1000, 8), (100, 10_000, 16)] {
        let points = rng.rows(n, d, 0.0, 1.0);
        let centroids = points[n - k..].to_vec();
        let input = json!({ "points": points, "centroids": centroids });
        workloads.push((
            "kmeans",
            ["cost", "dir"],
            format!("k={k},n={n},d={d}"),
            input,
        ));
    }
    for (d, k) in [(2, 5), (10, 25), (64, 100)] {
        let n = 1000;
        let l_size = d * (d - 1) / 2;
        let input = json!({
            "d": d, "k": k, "n": n, "m": 0, "gamma": 1.0,
            "alpha": rng.vec(k, 0.0, 1.0),
            "mu": rng.rows(k, d, 0.0, 1.0),
            "q": rng.rows(k, d, 0.0, 1.0),
            "l": rng.rows(k, l_size, 0.0, 1.0),
            "x": rng.rows(n, d, 0.0, 1.0),
        });
        workloads.push((
            "gmm",
            ["objective", "jacobian"],
            format!("d={d},k={k},n={n}"),
            input,
        ));
    }
    for (l, c) in [(2, 1024), (4, 4096)] {
        // b = 7 bits a character, the sequence of bits as GradBench's text gives.
        let b = 7;
        let sequence: Vec<Vec<f64>> = (0..c)
            .map(|_| (0..b).map(|_| (rng.next() < 0.5) as u8 as f64).collect())
            .collect();
        let input = json!({
            "main_params": rng.rows(2 * l, 4 * b, 0.0, 1.0),
            "extra_params": rng.rows(3, b, 0.0, 1.0),
            "state": rng.rows(2 * l, b, 0.0, 1.0),
            "sequence": sequence,
        });
        workloads.push((
            "lstm",
            ["objective", "jacobian"],
            format!("l={l},c={c}"),
            input,
        ));
    }
    for (n, m, p) in [(49, 7776, 31843), (21, 11315, 36455)] {
        // One camera, point, weight and feature of magnitudes like those of ADBench's files.
        let mut cam = rng.vec(11, -1.0, 1.0);
        cam[3..6].copy_from_slice(&rng.vec(3, 30.0, 60.0));
        cam[6] = 400.0;
        cam[9..].copy_from_slice(&[0.08, 0.003]);
        let input = json!({
            "n": n, "m": m, "p": p, "cam": cam, "x": rng.vec(3, 0.0, 8.0), "w": 0.4,
            "feat": rng.vec(2, 200.0, 800.0),
        });
        workloads.push((
            "ba",
            ["objective", "jacobian"],
            format!("n={n},m={m},p={p}"),
            input,
        ));
    }

    if manual.is_some() {
        println!(
            "| eval | workload | primal | derivative | derivative / primal | manual primal | manual derivative | manual derivative / primal | ours / manual (derivative) | outputs match manual |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    } else {
        println!(
            "| eval | workload | primal | derivative | derivative / primal |\n| --- | --- | --- | --- | --- |"
        );
    }
    let mut id = 0;
    for (module, [primal, derivative], workload, mut input) in workloads {
        input["min_runs"] = json!(3);
        input["min_seconds"] = json!(min_seconds);
        let mut ours = |function: &str| {
            id += 1;
            let message = json!({
                "id": id, "kind": "evaluate", "module": module, "function": function, "input": &input,
            });
            let answer = respond(&message.to_string());
            (median_ns(&answer), answer["output"].clone())
        };
        let ((tp, out_p), (td, out_d)) = (ours(primal), ours(derivative));
        let mut row = format!(
            "| {module} (`{derivative}`) | {workload} | {} | {} | {:.2} |",
            format_ns(tp),
            format_ns(td),
            td / tp
        );
        if let Some(bin) = &manual {
            let (expected_p, mp) = run_manual(bin, module, primal, &input);
            let (expected_d, md) = run_manual(bin, module, derivative, &input);
            let mut found = Vec::new();
            mismatches(&expected_p, &out_p, primal, &mut found);
            mismatches(&expected_d, &out_d, derivative, &mut found);
            let verdict = match found.first() {
                None => "yes".to_string(),
                Some(first) => format!("no: {} mismatches, {first}", found.len()),
            };
            row += &format!(
                " {} | {} | {:.2} | {:.2} | {verdict} |",
                format_ns(mp),
                format_ns(md),
                md / mp,
                td / md
            );
        }
        println!("{row}");
    }
}
