//! Compile time: how long `#[differentiable]` takes to expand the user forms of the speed benches
//! (`benches/user_forms/autodiff.rs`: Rosenbrock, logsumexp, softmax cross-entropy, RK4 with its
//! right-hand side, an MLP; about 100 lines), as rustc's own `-Z time-passes` reports it
//! (`macro_expand_crate`), with the macro crate in the dev profile as a user's `cargo build` has it.
//!
//! `cargo bench --bench expansion`
//!
//! The bench writes a small crate under `target/expansion-bench/` that depends on this one by path,
//! builds it once, then compiles it again `RUNS` times (stable rustc accepts `-Z` flags with
//! `RUSTC_BOOTSTRAP=1`), and the same source with the attributes taken out, whose expansion is rustc's
//! own share. Times are wall-clock inside rustc: the minimum over the runs is the figure; a machine
//! busy with other work inflates every run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Compilations timed per variant.
const RUNS: usize = 10;

/// The user forms, as the speed benches compile them.
const SOURCE: &str = include_str!("user_forms/autodiff.rs");

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let dir = target.join("expansion-bench");
    let without: String = SOURCE
        .lines()
        .filter(|line| !line.trim_start().starts_with("#[differentiable"))
        .map(|line| format!("{line}\n"))
        .collect();
    let lines = SOURCE.lines().count();
    let mut minima = Vec::new();
    for (name, source) in [("with #[differentiable]", SOURCE), ("without", &without)] {
        let times = expansion_times(&dir, root, source);
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "{name:<22} macro_expand_crate of {lines} lines: min {:>6.1} ms  median {:>6.1} ms  ({} runs)",
            sorted[0] * 1e3,
            sorted[sorted.len() / 2] * 1e3,
            sorted.len()
        );
        minima.push(sorted[0]);
    }
    println!(
        "the macro's share (difference of the minima): {:.1} ms",
        (minima[0] - minima[1]) * 1e3
    );
}

/// `macro_expand_crate` of `RUNS` compilations of a crate whose library is `source`.
fn expansion_times(dir: &Path, autodiff: &Path, source: &str) -> Vec<f64> {
    std::fs::create_dir_all(dir.join("src")).expect("the bench's directory can be made");
    let manifest = format!(
        "[package]\nname = \"expansion-fixture\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nautodiff = {{ path = {:?} }}\n\n[workspace]\n",
        autodiff.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("the manifest can be written");
    let lib = format!("#![allow(unused, clippy::all)]\n{source}");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("the source can be written");
    let build = |time_passes: bool| {
        let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        command
            .current_dir(dir)
            .args(["rustc", "--lib", "--quiet"])
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUSTFLAGS");
        if time_passes {
            command
                .env("RUSTC_BOOTSTRAP", "1")
                .args(["--", "-Z", "time-passes"]);
        }
        let output = command.output().expect("cargo runs");
        assert!(
            output.status.success(),
            "the fixture compiles:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    build(false);
    (0..RUNS)
        .map(|_| {
            // A change to the source, so that cargo compiles the crate again.
            let lib = dir.join("src/lib.rs");
            let text = std::fs::read_to_string(&lib).expect("the source can be read");
            std::fs::write(&lib, text).expect("the source can be written");
            let report = build(true);
            report
                .lines()
                .filter(|line| line.ends_with("macro_expand_crate"))
                .find_map(|line| {
                    line.trim_start_matches("time:")
                        .split(';')
                        .next()
                        .and_then(|seconds| seconds.trim().parse::<f64>().ok())
                })
                .expect("rustc reports macro_expand_crate")
        })
        .collect()
}
