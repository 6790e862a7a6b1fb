//! Builds the generated crate, attributes rustc's errors to program modules, drops those and rebuilds, then runs
//! the harness binary (with a timeout per program) and classifies every program.

use crate::ast::Program;
use crate::harness;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What happened to one program.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every generated item agrees with the oracle.
    Ok,
    /// A generated item disagrees with the oracle (the message says which, where, by how much).
    Wrong(String),
    /// The `#[differentiable]` copy does not compile: the error code (or message) and rustc's rendering.
    CompileFail {
        /// `E0689`, or the message with names blanked.
        key: String,
        /// rustc's rendered diagnostic.
        rendered: String,
    },
    /// The macro panicked while expanding (a proc-macro panic reported by rustc).
    MacroPanic(String),
    /// The generated code panicked (or hung, or aborted) at run time.
    Panicked(String),
    /// The plain or oracle copy is invalid: a bug of the generator, not of the macro.
    GeneratorBug(String),
}

impl Outcome {
    /// A short key that the shrinker keeps constant: the class and the kind of failure.
    pub fn key(&self) -> String {
        match self {
            Outcome::Ok => "ok".into(),
            Outcome::Wrong(m) => format!("wrong: {}", m.split(':').next().unwrap_or("")),
            Outcome::CompileFail { key, .. } => format!("compile: {key}"),
            Outcome::MacroPanic(_) => "macro panic".into(),
            Outcome::Panicked(m) => format!("panic: {}", blank_names(m)),
            Outcome::GeneratorBug(_) => "generator".into(),
        }
    }

    /// Whether this is a finding about the macro.
    pub fn is_failure(&self) -> bool {
        !matches!(self, Outcome::Ok | Outcome::GeneratorBug(_))
    }
}

/// A message with the names in backticks and the numbers blanked, so that it survives shrinking.
pub fn blank_names(m: &str) -> String {
    let mut out = String::new();
    let mut in_tick = false;
    for ch in m.chars() {
        if ch == '`' {
            in_tick = !in_tick;
            out.push_str(if in_tick { "`_" } else { "`" });
        } else if !in_tick {
            out.push(if ch.is_ascii_digit() { '#' } else { ch });
        }
    }
    out
}

/// The generated crate: where it is written and built.
pub struct WorkCrate {
    /// The crate directory (Cargo.toml, src/).
    pub dir: PathBuf,
    /// Its cargo target directory (shared by every run, so dependencies are built once).
    pub target: PathBuf,
    /// The `autodiff` workspace root the crate depends on.
    pub root: PathBuf,
}

/// The result of evaluating a set of programs.
pub struct Evaluation {
    /// The outcome of each module.
    pub outcomes: BTreeMap<String, Outcome>,
    /// The flattened gradients (or vector-Jacobian products) each passing program printed.
    pub grads: BTreeMap<String, Vec<f64>>,
    /// How many builds it took.
    pub builds: usize,
    /// The points skipped, by program, because the oracle computed a non-finite value there.
    pub skipped: BTreeMap<String, usize>,
}

impl WorkCrate {
    /// A crate in `<root>/target/fuzz-work/<name>`.
    pub fn new(root: &Path, name: &str) -> Self {
        let base = root.join("target").join("fuzz-work");
        WorkCrate {
            dir: base.join(name),
            target: base.join("target"),
            root: root.to_path_buf(),
        }
    }

    /// The package (and binary) name: one per crate directory, so that runs of several seeds can share the
    /// target directory without overwriting each other's binary.
    fn package(&self) -> String {
        let dir = self
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let clean: String = dir
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("fuzz-work-{clean}")
    }

    fn write_skeleton(&self) -> std::io::Result<()> {
        let src = self.dir.join("src");
        if src.exists() {
            fs::remove_dir_all(&src)?;
        }
        fs::create_dir_all(&src)?;
        let manifest = format!(
            "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nautodiff = {{ path = {:?} }}\n\n[workspace]\n\n\
             [profile.dev]\nopt-level = 0\ndebug = false\nincremental = true\n",
            self.package(),
            self.root.display().to_string()
        );
        fs::write(self.dir.join("Cargo.toml"), manifest)?;
        let lock = self.root.join("Cargo.lock");
        if lock.exists() && !self.dir.join("Cargo.lock").exists() {
            fs::copy(lock, self.dir.join("Cargo.lock"))?;
        }
        fs::write(src.join("support.rs"), harness::SUPPORT)
    }

    /// Writes, builds (dropping modules that do not compile) and runs `programs` (module name, program).
    /// `features` is passed to cargo (`autodiff/reference-adjoint`).
    pub fn evaluate(
        &self,
        programs: &[(String, Program)],
        features: Option<&str>,
        seed: u64,
        quiet: bool,
    ) -> Result<Evaluation, String> {
        self.write_skeleton()
            .map_err(|e| format!("writing {}: {e}", self.dir.display()))?;
        let src = self.dir.join("src");
        for (m, p) in programs {
            fs::write(src.join(format!("{m}.rs")), harness::program_module(p, m))
                .map_err(|e| e.to_string())?;
            fs::write(
                src.join(format!("{m}_oracle.rs")),
                harness::oracle_module(p),
            )
            .map_err(|e| e.to_string())?;
        }
        let mut outcomes: BTreeMap<String, Outcome> = BTreeMap::new();
        let mut modules: BTreeSet<String> = programs.iter().map(|(m, _)| m.clone()).collect();
        let mut oracles = modules.clone();
        let ids: BTreeMap<String, usize> =
            programs.iter().map(|(m, p)| (m.clone(), p.id)).collect();
        let mut builds = 0;
        loop {
            let mods: Vec<(String, usize)> = modules.iter().map(|m| (m.clone(), ids[m])).collect();
            let ors: Vec<String> = oracles.iter().cloned().collect();
            fs::write(src.join("main.rs"), harness::main_rs(&mods, &ors))
                .map_err(|e| e.to_string())?;
            builds += 1;
            let start = Instant::now();
            let errors = self.build(features)?;
            if !quiet {
                eprintln!(
                    "fuzz: build {builds} of {} modules: {:.1} s, {} failing",
                    mods.len(),
                    start.elapsed().as_secs_f64(),
                    errors.len()
                );
            }
            if errors.is_empty() {
                break;
            }
            for (file, outcome) in errors {
                if let Some(m) = file.strip_suffix("_oracle") {
                    // The copies without the macro do not compile: the generator wrote invalid Rust.
                    let m = m.to_string();
                    oracles.remove(&m);
                    modules.remove(&m);
                    let msg = match outcome {
                        Outcome::CompileFail { rendered, .. } => rendered,
                        o => format!("{o:?}"),
                    };
                    outcomes.insert(m, Outcome::GeneratorBug(msg));
                } else if modules.remove(&file) {
                    outcomes.entry(file).or_insert(outcome);
                } else {
                    outcomes.entry(file.clone()).or_insert(outcome);
                    if !oracles.contains(&file) {
                        return Err(format!("an error in {file} after it was dropped"));
                    }
                }
            }
            if builds > 12 {
                return Err("the build still fails after 12 rounds".into());
            }
        }
        let mods: Vec<String> = modules.iter().cloned().collect();
        let (run, grads, skipped) = self.run(&mods, seed)?;
        outcomes.extend(run);
        Ok(Evaluation {
            outcomes,
            grads,
            builds,
            skipped,
        })
    }

    /// One `cargo build`; the errors by module (`p3` or `p3_oracle`), first error of each.
    fn build(&self, features: Option<&str>) -> Result<BTreeMap<String, Outcome>, String> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.arg("build")
            .arg("--message-format=json")
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&self.target);
        if let Some(f) = features {
            cmd.arg("--features").arg(f);
        }
        cmd.env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_INCREMENTAL")
            .env("CARGO_TERM_COLOR", "never");
        let out = cmd.output().map_err(|e| format!("running cargo: {e}"))?;
        let mut errors: BTreeMap<String, Outcome> = BTreeMap::new();
        let mut unattributed = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if v["reason"] != "compiler-message" || v["message"]["level"] != "error" {
                continue;
            }
            let msg = &v["message"];
            let text = msg["message"].as_str().unwrap_or("").to_string();
            let rendered = msg["rendered"].as_str().unwrap_or("").to_string();
            let spans = msg["spans"].as_array().cloned().unwrap_or_default();
            let module_of = |s: &serde_json::Value| {
                s["file_name"]
                    .as_str()
                    .and_then(|f| f.strip_prefix("src/"))
                    .and_then(|f| f.strip_suffix(".rs"))
                    .map(|m| m.to_string())
            };
            let file = spans
                .iter()
                .find(|s| s["is_primary"] == true)
                .or(spans.first())
                .and_then(module_of);
            // An error whose primary span is in a dependency (a bound of `autodiff::__private`) belongs
            // to the program module another of its spans is in (the call that requires the bound).
            let file = file
                .or_else(|| spans.iter().find_map(module_of))
                .or_else(|| {
                    msg["children"].as_array().and_then(|c| {
                        c.iter()
                            .filter_map(|c| c["spans"].as_array())
                            .flatten()
                            .find_map(module_of)
                    })
                });
            let module = file.as_deref();
            match module {
                Some(m) if m != "main" && m != "support" => {
                    let outcome = if text.contains("panicked")
                        && (text.contains("attribute") || text.contains("macro"))
                    {
                        let help = msg["children"]
                            .as_array()
                            .and_then(|c| {
                                c.iter()
                                    .find_map(|c| c["message"].as_str().map(|s| s.to_string()))
                            })
                            .unwrap_or_default();
                        Outcome::MacroPanic(format!("{text}: {help}"))
                    } else {
                        let key = msg["code"]["code"]
                            .as_str()
                            .map(|c| c.to_string())
                            .unwrap_or_else(|| blank_names(&text));
                        Outcome::CompileFail { key, rendered }
                    };
                    errors.entry(m.to_string()).or_insert(outcome);
                }
                _ if spans.is_empty() && text.starts_with("aborting") => {}
                _ if spans.is_empty() && text.contains("could not compile") => {}
                _ => unattributed.push(rendered),
            }
        }
        if !out.status.success() && errors.is_empty() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(format!(
                "cargo build failed without attributable errors:\n{}\n{stderr}",
                unattributed.join("\n")
            ));
        }
        if out.status.success() && !errors.is_empty() {
            return Err("cargo build succeeded but reported errors".into());
        }
        Ok(errors)
    }

    /// Runs the harness binary from program `start` on, restarting after a hang or an abort.
    #[allow(clippy::type_complexity)]
    fn run(
        &self,
        modules: &[String],
        seed: u64,
    ) -> Result<
        (
            BTreeMap<String, Outcome>,
            BTreeMap<String, Vec<f64>>,
            BTreeMap<String, usize>,
        ),
        String,
    > {
        let exe = self.target.join("debug").join(format!(
            "{}{}",
            self.package(),
            std::env::consts::EXE_SUFFIX
        ));
        let mut outcomes = BTreeMap::new();
        let mut grads = BTreeMap::new();
        let mut skipped = BTreeMap::new();
        let mut start = 0;
        while start < modules.len() {
            let mut child = Command::new(&exe)
                .arg(start.to_string())
                .arg(seed.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("running {}: {e}", exe.display()))?;
            let stdout = child.stdout.take().expect("piped stdout");
            let (tx, rx) = mpsc::channel();
            let reader = std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            let mut current: Option<(usize, String)> = None;
            let mut done = false;
            let mut timed_out = false;
            loop {
                match rx.recv_timeout(Duration::from_secs(20)) {
                    Ok(line) => {
                        let mut parts = line.splitn(3, ' ');
                        let tag = parts.next().unwrap_or("");
                        match tag {
                            "BEGIN" => {
                                let k: usize =
                                    parts.next().and_then(|k| k.parse().ok()).unwrap_or(0);
                                current = Some((k, parts.next().unwrap_or("").to_string()));
                            }
                            "DONE" => done = true,
                            "SKIP" => {
                                let name = parts.next().unwrap_or("").to_string();
                                let n = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
                                skipped.insert(name, n);
                            }
                            "GRAD" => {
                                let name = parts.next().unwrap_or("").to_string();
                                let vals = parts
                                    .next()
                                    .unwrap_or("")
                                    .split_whitespace()
                                    .filter_map(|x| x.parse().ok())
                                    .collect();
                                grads.insert(name, vals);
                            }
                            "OK" | "WRONG" | "PANIC" => {
                                let name = parts.next().unwrap_or("").to_string();
                                let rest = parts.next().unwrap_or("").to_string();
                                let o = match tag {
                                    "OK" => Outcome::Ok,
                                    "WRONG" if rest.starts_with("generator:") => {
                                        Outcome::GeneratorBug(rest)
                                    }
                                    "WRONG" => Outcome::Wrong(rest),
                                    _ => Outcome::Panicked(rest),
                                };
                                outcomes.insert(name, o);
                                current = None;
                            }
                            _ => {}
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        timed_out = true;
                        let _ = child.kill();
                        break;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            let status = child.wait().map_err(|e| e.to_string())?;
            let _ = reader.join();
            if done {
                break;
            }
            match current {
                Some((k, name)) => {
                    let why = if timed_out {
                        "hung (no result in 20 s)".to_string()
                    } else {
                        format!("the process died: {status}")
                    };
                    outcomes.insert(name, Outcome::Panicked(why));
                    start = k + 1;
                }
                None => return Err(format!("the harness stopped without a result: {status}")),
            }
        }
        Ok((outcomes, grads, skipped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_survive_renaming() {
        let a =
            Outcome::Panicked("index out of bounds: the len is 3 but the index is `__i7`".into());
        let b =
            Outcome::Panicked("index out of bounds: the len is 4 but the index is `__i2`".into());
        assert_eq!(a.key(), b.key());
        let w =
            Outcome::Wrong("f_grad: entry 0 is 1e0, the dual oracle gives 2e0 at point 0".into());
        assert_eq!(w.key(), "wrong: f_grad");
        assert!(
            w.is_failure()
                && !Outcome::Ok.is_failure()
                && !Outcome::GeneratorBug(String::new()).is_failure()
        );
    }

    #[test]
    fn package_names_follow_the_directory() {
        let w = WorkCrate::new(Path::new("/tmp/root"), "seed7-reference");
        assert_eq!(w.package(), "fuzz-work-seed7-reference");
        assert!(w.dir.ends_with("target/fuzz-work/seed7-reference"));
    }
}
