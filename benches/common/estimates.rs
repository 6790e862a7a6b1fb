//! Reading back what criterion measured in this run: the median time per call of an entry, from
//! `target/criterion/<group>/<entry>/new/estimates.json`, for the ratio summaries the benches print.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where criterion writes its results: the same rules as criterion's own (`CRITERION_HOME`, then
/// `$CARGO_TARGET_DIR/criterion`), else the `criterion` folder of the target directory that holds
/// this executable.
pub fn criterion_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .map(|dir| dir.join("criterion"))
        .find(|dir| dir.is_dir())
}

/// The `point_estimate` (ns) of `key` ("median", "mean", ...) in an `estimates.json` of criterion.
pub fn point_estimate(json: &str, key: &str) -> Option<f64> {
    let start = json.find(&format!("\"{key}\":"))?;
    let rest = &json[start..];
    let at = rest.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let number: String = rest[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
        .collect();
    number.parse().ok()
}

/// The median time (ns) of one entry, if criterion measured it in this run (its `new/estimates.json`
/// was written after `run_start`).
pub fn measured_median(dir: &Path, group: &str, entry: &str, run_start: SystemTime) -> Option<f64> {
    let file = dir
        .join(group)
        .join(entry)
        .join("new")
        .join("estimates.json");
    let modified = std::fs::metadata(&file).ok()?.modified().ok()?;
    if modified < run_start {
        return None;
    }
    point_estimate(&std::fs::read_to_string(&file).ok()?, "median")
}

pub fn format_time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

pub fn format_ratio(ratio: Option<f64>) -> String {
    match ratio {
        Some(r) if r >= 100.0 => format!("{r:.0}x"),
        Some(r) => format!("{r:.2}x"),
        None => "-".to_string(),
    }
}
