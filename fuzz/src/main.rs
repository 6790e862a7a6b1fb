//! `autodiff-fuzz`: a differential fuzzer for the `autodiff` macros.
//!
//! It generates random programs in the documented subset, builds them all in one generated crate with the
//! `#[differentiable]` copy beside a plain generic oracle copy, runs each program's `_grad`, `_vjp`, `_jvp` and
//! `_hvp` against dual numbers, shrinks the failures and prints them.
//!
//! ```text
//! cargo run -p autodiff-fuzz --release -- --seed 1 --programs 100 [--no-shrink] [--strict] [--reference] [--forms] [--sugar] [--scratch] [--vecs] [--structs]
//! ```

mod ast;
mod gen;
mod harness;
mod order2;
mod print;
mod rng;
mod runner;
mod shrink;

use runner::{Outcome, WorkCrate};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How many programs one generated crate holds.
const CHUNK: usize = 250;

/// Command-line options.
#[derive(Debug)]
struct Options {
    seed: u64,
    programs: usize,
    shrink: bool,
    shrink_secs: u64,
    strict: bool,
    reference: bool,
    /// Also generate the newer forms (iterator chains, output parameters, tuples, matrix parameters of every type); without it
    /// a seed's programs are as before.
    forms: bool,
    /// Also generate the forms of `--sugar` (`gen/sugar.rs`): iterator direction chains under order-dependent
    /// accumulations, destructuring assignments, `match` guards and bindings, labelled block values,
    /// `copysign` and `clamp`, the float methods and constants no other form writes (`tan`..`acosh`, `log2`,
    /// `log(base)`, `sin_cos`, `f64::sin(x)`, `std::f64::consts`, `f64::EPSILON`), a helper that calls
    /// itself. Without it a seed's programs are as before.
    sugar: bool,
    /// Generate the programs of `--scratch` instead (`gen/scratch.rs`): loops over data with local
    /// arrays, shaped for the fusion of a loop's reverse into its forward sweep, and its near misses.
    scratch: bool,
    /// Generate the programs of `--vecs` instead (`gen/vecs.rs`): local `Vec`s used as stacks (`push`,
    /// `pop`, `last`, `first`) and slice locals rebound to other windows, `windows`, `chunks`, `max_by`.
    vecs: bool,
    /// Generate the programs of `--structs` instead (`gen/structs.rs`): `#[derive(Differentiable)]`
    /// structs, methods with `wrt(self, ..)`, associated functions, functions of `p: &S` and `p: S`.
    structs: bool,
    quiet: bool,
    /// The `--order2` mode: every function of the suites at `order = 2` (`order2.rs`).
    order2: bool,
    /// With `--order2`: only the files whose path contains this (or one of its comma-separated parts).
    only: Option<String>,
    /// With `--order2`: leave out the files whose path contains one of these comma-separated parts.
    skip: Option<String>,
    /// With `--order2`: also build the twins known.txt lists as not compiling.
    recheck_known: bool,
    /// `--order3`: the `--order2` mode with twins of `order = 3`, whose `f_derivatives` (one scalar input)
    /// gives a third derivative, checked against central differences of the second.
    order3: bool,
}

impl Options {
    /// The prefix of the work crate and failure files of the programs generated: `--scratch` and
    /// `--vecs` programs are other programs than a seed's plain ones.
    fn kind(&self) -> &'static str {
        if self.structs {
            "structs-"
        } else if self.vecs {
            "vecs-"
        } else if self.scratch {
            "scratch-"
        } else {
            ""
        }
    }
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        seed: 1,
        programs: 100,
        shrink: true,
        shrink_secs: 120,
        strict: false,
        reference: false,
        forms: false,
        sugar: false,
        scratch: false,
        vecs: false,
        structs: false,
        quiet: false,
        order2: false,
        only: None,
        skip: None,
        recheck_known: false,
        order3: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--seed" => {
                o.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--programs" => {
                o.programs = value("--programs")?
                    .parse()
                    .map_err(|e| format!("--programs: {e}"))?
            }
            "--shrink-secs" => {
                o.shrink_secs = value("--shrink-secs")?
                    .parse()
                    .map_err(|e| format!("--shrink-secs: {e}"))?
            }
            "--no-shrink" => o.shrink = false,
            "--strict" => o.strict = true,
            "--reference" => o.reference = true,
            "--forms" => o.forms = true,
            "--sugar" => o.sugar = true,
            "--scratch" => o.scratch = true,
            "--vecs" => o.vecs = true,
            "--structs" => o.structs = true,
            "--quiet" => o.quiet = true,
            "--order2" => o.order2 = true,
            "--order3" => {
                o.order2 = true;
                o.order3 = true;
            }
            "--only" => o.only = Some(value("--only")?),
            "--skip" => o.skip = Some(value("--skip")?),
            "--recheck-known" => o.recheck_known = true,
            "-h" | "--help" => {
                println!(
                    "usage: autodiff-fuzz [--seed S] [--programs N] [--no-shrink] [--shrink-secs T] [--strict] [--reference] [--forms] [--sugar] [--scratch] [--vecs] [--structs] [--quiet]\n       autodiff-fuzz --order2|--order3 [--strict] [--quiet] [--only PATH-PART,..] [--skip PATH-PART,..] [--recheck-known]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(o)
}

/// The workspace root: the parent of this package's manifest directory, as `cargo run` gives it to the
/// process, else as it was when the binary was built. (A binary built from another checkout sharing the
/// target directory, such as a clone for a CI run, keeps that checkout's path: reading it alone, a later
/// `cargo run` that did not rebuild the binary tested the other checkout's library.)
fn workspace_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest_dir
        .parent()
        .expect("fuzz/ is inside the workspace")
        .to_path_buf()
}

fn main() {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fuzz: {e}");
            std::process::exit(2);
        }
    };
    let result = if opts.order2 {
        let o = order2::Options {
            strict: opts.strict,
            quiet: opts.quiet,
            only: opts.only.clone(),
            skip: opts.skip.clone(),
            recheck_known: opts.recheck_known,
            order: if opts.order3 { 3 } else { 2 },
        };
        order2::run(&workspace_root(), &o)
    } else {
        run(&opts)
    };
    match result {
        Ok(found) => std::process::exit(if opts.strict && found { 1 } else { 0 }),
        Err(e) => {
            eprintln!("fuzz: error: {e}");
            std::process::exit(2);
        }
    }
}

/// Runs the campaign; `Ok(true)` when something was found.
fn run(opts: &Options) -> Result<bool, String> {
    let started = Instant::now();
    let root = workspace_root();
    let programs: Vec<(String, ast::Program)> = (0..opts.programs)
        .map(|id| {
            let p = if opts.structs {
                gen::generate_structs(opts.seed, id)
            } else if opts.vecs {
                gen::generate_vecs(opts.seed, id)
            } else if opts.scratch {
                gen::generate_scratch(opts.seed, id)
            } else {
                gen::generate(opts.seed, id, opts.forms, opts.sugar)
            };
            (format!("p{id}"), p)
        })
        .collect();
    // `--scratch` and `--vecs` programs are built apart from the same seed's others.
    let kind = opts.kind();
    let work = WorkCrate::new(&root, &format!("{kind}seed{}", opts.seed));
    // Large runs are built in chunks: one crate of thousands of modules compiles slowly and needs much memory.
    let mut outcomes = BTreeMap::new();
    let mut grads = BTreeMap::new();
    let mut skipped = BTreeMap::new();
    let mut builds = 0;
    for chunk in programs.chunks(CHUNK) {
        let eval = work.evaluate(chunk, None, opts.seed, opts.quiet)?;
        outcomes.extend(eval.outcomes);
        grads.extend(eval.grads);
        skipped.extend(eval.skipped);
        builds += eval.builds;
    }
    if !opts.quiet {
        eprintln!(
            "fuzz: built in {builds} rounds, checked in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }

    if opts.reference {
        compare_reference(opts, &work, &programs, &grads, &mut outcomes)?;
    }

    let mut failures: Vec<(String, ast::Program, Outcome)> = programs
        .iter()
        .filter_map(|(m, p)| {
            let o = outcomes
                .get(m)
                .cloned()
                .unwrap_or(Outcome::Panicked("no result".into()));
            o.is_failure().then(|| (m.clone(), p.clone(), o))
        })
        .collect();

    let generator_bugs: Vec<(&String, &Outcome)> = outcomes
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::GeneratorBug(_)))
        .collect();
    for (m, o) in &generator_bugs {
        if let Outcome::GeneratorBug(msg) = o {
            println!(
                "generator bug in {m} (not counted; the plain or oracle copy is invalid):\n{msg}"
            );
        }
    }

    // One representative per distinct failure (the smallest program with that key) is shrunk; the others are
    // printed as generated, with a pointer to it.
    let mut representative: BTreeMap<String, usize> = BTreeMap::new();
    for (k, (_, p, o)) in failures.iter().enumerate() {
        let best = representative.entry(o.key()).or_insert(k);
        if p.size() < failures[*best].1.size() {
            *best = k;
        }
    }
    // `--structs` programs are not shrunk (the shrinker edits the free functions of `Program::funcs`).
    if opts.shrink && !opts.structs && !failures.is_empty() {
        let shrink_work = WorkCrate::new(&root, "shrink");
        let budget = Duration::from_secs(opts.shrink_secs);
        let reps: Vec<(String, ast::Program, Outcome)> = representative
            .values()
            .map(|&k| failures[k].clone())
            .collect();
        let shrunk = shrink::shrink_all(&shrink_work, &reps, opts.seed, budget, opts.quiet)?;
        for (&k, (s, o)) in representative.values().zip(shrunk) {
            if !opts.quiet {
                eprintln!(
                    "fuzz: {} shrunk from {} to {} nodes",
                    failures[k].0,
                    failures[k].1.size(),
                    s.size()
                );
            }
            failures[k].1 = s;
            failures[k].2 = o;
        }
    }

    let dir = root.join("target").join("fuzz-failures");
    if !failures.is_empty() {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    }
    let (mut wrong, mut compile, mut panicked) = (0, 0, 0);
    for (m, p, o) in &failures {
        let (class, detail) = match o {
            Outcome::Wrong(d) => {
                wrong += 1;
                ("wrong", d.clone())
            }
            Outcome::CompileFail { rendered, .. } => {
                compile += 1;
                ("failed to compile", rendered.clone())
            }
            Outcome::MacroPanic(d) => {
                panicked += 1;
                ("panicked (in the macro)", d.clone())
            }
            Outcome::Panicked(d) => {
                panicked += 1;
                ("panicked", d.clone())
            }
            _ => unreachable!("only failures are listed"),
        };
        let rep = &failures[representative[&o.key()]].0;
        let shrunk = if rep == m && opts.shrink && !opts.structs {
            "shrunk"
        } else {
            "not shrunk"
        };
        let also = if rep == m {
            String::new()
        } else {
            format!(", the same failure as {rep}")
        };
        let source = format!(
            "// autodiff-fuzz --seed {}{} program {m} ({shrunk}{also}): {class} [{}]\n// {}\nuse autodiff::{{custom_gradient, differentiable, Differentiable, Float}};\n\n{}",
            opts.seed,
            match opts.kind() {
                "scratch-" => " --scratch",
                "vecs-" => " --vecs",
                "structs-" => " --structs",
                _ => "",
            },
            o.key(),
            detail.lines().collect::<Vec<_>>().join("\n// "),
            match &p.structs {
                Some(sp) => gen::structs::macro_source(sp),
                None => print::print_program(p, print::Mode::Macro),
            }
        );
        println!(
            "==== seed {} {m}: {class} [{}]{also}\n{source}",
            opts.seed,
            o.key()
        );
        let kind = opts.kind();
        let file = dir.join(format!("{kind}seed{}-{m}.rs", opts.seed));
        std::fs::write(&file, &source).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    if !generator_bugs.is_empty() {
        println!(
            "fuzz: {} generator bugs (programs skipped)",
            generator_bugs.len()
        );
    }
    if !opts.quiet {
        eprintln!("fuzz: total {:.1} s", started.elapsed().as_secs_f64());
    }
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped.keys().map(String::as_str).collect();
        println!(
            "fuzz: {} points skipped, where the primal evaluation has a non-finite value (in {}): reverse \
             mode gives NaN there where a zero adjoint meets an infinite partial, as JAX does",
            skipped.values().sum::<usize>(),
            names.join(", ")
        );
    }
    println!(
        "fuzz: {} programs, {wrong} wrong, {compile} failed to compile, {panicked} panicked",
        opts.programs
    );
    Ok(wrong + compile + panicked > 0)
}

/// Builds the same programs with `--features autodiff/reference-adjoint` and compares the gradients.
fn compare_reference(
    opts: &Options,
    work: &WorkCrate,
    programs: &[(String, ast::Program)],
    grads: &BTreeMap<String, Vec<f64>>,
    outcomes: &mut BTreeMap<String, Outcome>,
) -> Result<(), String> {
    let ok: Vec<(String, ast::Program)> = programs
        .iter()
        .filter(|(m, _)| outcomes.get(m) == Some(&Outcome::Ok))
        .cloned()
        .collect();
    let kind = opts.kind();
    let reference = WorkCrate::new(&work.root, &format!("{kind}seed{}-reference", opts.seed));
    let mut ref_outcomes = BTreeMap::new();
    let mut ref_grads = BTreeMap::new();
    for chunk in ok.chunks(CHUNK) {
        match reference.evaluate(
            chunk,
            Some("autodiff/reference-adjoint"),
            opts.seed,
            opts.quiet,
        ) {
            Ok(e) => {
                ref_outcomes.extend(e.outcomes);
                ref_grads.extend(e.grads);
            }
            Err(e) if e.contains("reference-adjoint") => {
                println!(
                    "fuzz: --reference skipped: the facade has no feature `reference-adjoint` yet"
                );
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
    if !opts.quiet {
        println!(
            "fuzz: the reference adjoint compared on {} programs",
            ref_outcomes.len()
        );
    }
    for (m, o) in ref_outcomes {
        if o != Outcome::Ok {
            let o = match o {
                Outcome::Wrong(d) => Outcome::Wrong(format!("reference build: {d}")),
                Outcome::Panicked(d) => Outcome::Panicked(format!("reference build: {d}")),
                o => o,
            };
            outcomes.insert(m, o);
            continue;
        }
        let (Some(a), Some(b)) = (grads.get(&m), ref_grads.get(&m)) else {
            continue;
        };
        let scale = a.iter().chain(b).fold(1.0f64, |s, x| s.max(x.abs()));
        if a.len() != b.len()
            || a.iter()
                .zip(b)
                .any(|(x, y)| (x - y).abs() > 1e-8 * x.abs().max(y.abs()) + 1e-10 * scale)
        {
            outcomes.insert(
                m,
                Outcome::Wrong(format!(
                    "reference: gradients differ: {a:?} vs reference {b:?}"
                )),
            );
        }
    }
    Ok(())
}
