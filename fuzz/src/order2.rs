//! `autodiff-fuzz --order2`: does every function of the test suites and examples that works at first order
//! work at `order = 2`?
//!
//! Each file of `tests/*.rs` and `examples/*.rs` is parsed with `syn` and copied whole into one of `PARTS` work crates
//! (as a module; `#[test]` functions become plain ones). Beside every `#[differentiable]` function whose
//! result is one float, the copy gets a twin `f__o2` with the same body and `order = 2` added to its
//! attribute (the original stays at first order, so the twin calls the callees as the user wrote them);
//! beside every `#[custom_gradient]` function and every `#[gradient_of]` registration, a twin
//! `#[differentiable(order = 2)]` that calls it. The crate is built; an error inside a twin (found through
//! marker items around it) counts the twin as failing to compile and drops it, and the build is repeated
//! until it passes. Then, at random points of shapes found by trial, each twin's `f__o2_grad` is compared
//! with central differences of the twin's value (the function as written, an oracle that shares no code with
//! the sweeps), and its `f__o2_hessian` with central differences of its `f__o2_grad`; then the twin's other
//! items against those (`support::Point::other_items`): `f_jvp` along a fixed tangent against `f_grad`'s
//! inner product with it (with output parameters, the outputs' tangents too, through a cotangent, against
//! `f_vjp`), `f_hvp` along it against `f_hessian` times it, `f_derivatives` (one scalar input) against the
//! value, gradient and Hessian, and `f_grad_into` into buffers of garbage against `f_grad` bit for bit. A
//! function of several results (a tuple, array or `Vec`, or output parameters; no twin) has its `f_vjp`
//! checked at first order against differences of its results seen through a fixed cotangent, its `f_jvp`
//! and `f_jacobian` against `f_vjp` (`vjp_check`). An output parameter (`&mut [T]`, `&mut T`) is made anew
//! for each call from the point's floats; they are inputs of the Hessian where the function reads the output's
//! incoming value, which the harness learns from the gradient's length. The structs and enums of a file
//! that the harness can make from the point's floats (`shapes.rs`) are parameters like the others, and so is
//! the receiver of a method, called as `<Ty>::f__o2_hessian(&self_, ..)` (constant unless `wrt(self)`); a
//! function declared in a body is checked through a copy of the body's items in a module of its own.
//!
//! `--order3` gives the twins `order = 3` instead (`Options::order`), and `f_derivatives`' third derivative
//! is then checked against central differences of its second (`support::third`).
//!
//! The known failures are listed in `fuzz/order2/known.txt` (`file::function: reason`); with `--strict`
//! the run fails on any failure not listed there, on a listed function that now passes, and on a file dropped
//! because it does not build in the work crate even at first order (its functions would go unchecked).

mod shapes;

use crate::runner::blank_names;
use quote::{format_ident, quote, ToTokens};
use shapes::Shapes;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use syn::visit_mut::VisitMut;

/// Files left out, with why: they need dependencies the work crate does not have, or hold no function.
const LEFT_OUT: &[(&str, &str)] = &[
    ("tests/argmin.rs", "needs the `argmin` feature and crate"),
    ("examples/argmin.rs", "needs the `argmin` feature and crate"),
    (
        "examples/digits.rs",
        "needs smartcore, indicatif and plotters",
    ),
    (
        "tests/digits_model.rs",
        "needs smartcore (examples/shared/digits_model.rs); its loss has `order = 2` and the test checks its Hessian",
    ),
    (
        "tests/compiletest.rs",
        "runs trybuild; its functions are in tests/ui",
    ),
    (
        "tests/doc_listings.rs",
        "reads the docs; no functions of its own",
    ),
];

/// What a twin is made from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Differentiable,
    Custom,
    Registered,
}

/// One function of the suites.
#[derive(Debug)]
struct Entry {
    /// `tests/calls.rs::helpers::square`.
    name: String,
    kind: Kind,
    /// Why the function has no twin (its result is not one float), if so.
    out_of_scope: Option<String>,
    /// Why its twin's Hessian is not checked numerically (a method, nested in a body, a parameter type the
    /// harness cannot make), if so.
    no_numerics: Option<String>,
    /// The twin failed to compile: the grouping key and rustc's rendering.
    compile_error: Option<(String, String)>,
    /// The harness could not call the twin (rustc's rendering).
    harness_error: Option<String>,
    /// `ok ..`, `wrong ..`, `panic ..`, `noinput ..`.
    result: Option<String>,
    /// The harness has a function calling the twin, `__o2_dispatch_<id>` at the root of the file's module.
    checked: bool,
}

/// A parsed file of the suites, and the file it becomes in the work crate.
struct Source {
    /// `tests/calls.rs`.
    rel: String,
    /// `tests_calls`: its module in the work crate.
    module: String,
    ast: syn::File,
    /// Its length in bytes, to share the files out among the work crates.
    size: usize,
}

/// How many crates the work is shared out among. Cargo builds two at a time on the two cores of the machines
/// CI runs on; four halves the memory of each rustc (two parts of the suites took 11.7 GB each at the
/// 4000 functions of 2026-12-06, more than a 23 GB machine holds side by side).
const PARTS: usize = 4;

/// The grouping key of a twin left out of the build because known.txt lists it as not compiling.
const NOT_BUILT: &str = "known not to compile (not built)";

/// `fuzz/order2/known.txt`: the known failures, `name: reason`, and which of them fail to compile (the
/// entries under the heading `## does not compile ..`).
struct Known {
    reasons: BTreeMap<String, String>,
    compile: BTreeSet<String>,
}

impl Known {
    fn read(root: &Path) -> Known {
        let text = fs::read_to_string(root.join("fuzz").join("order2").join("known.txt"))
            .unwrap_or_default();
        let mut known = Known {
            reasons: BTreeMap::new(),
            compile: BTreeSet::new(),
        };
        let mut compile_section = false;
        for line in text.lines().map(str::trim) {
            if let Some(heading) = line.strip_prefix("## ") {
                compile_section = heading.starts_with("does not compile");
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some((name, reason)) = line.split_once(": ") {
                known.reasons.insert(name.to_string(), reason.to_string());
                if compile_section {
                    known.compile.insert(name.to_string());
                }
            }
        }
        known
    }
}

/// Options of the `--order2` mode.
pub struct Options {
    pub strict: bool,
    pub quiet: bool,
    /// Also build the twins known.txt lists as not compiling (two builds), to find the ones that compile now.
    pub recheck_known: bool,
    /// Only files whose path contains this, or one of its comma-separated parts.
    pub only: Option<String>,
    /// Leave out files whose path contains one of these comma-separated parts (CI leaves out the probes).
    pub skip: Option<String>,
    /// The order the twins get: 2, or 3 with `--order3`, where `f_derivatives` of a function of one
    /// scalar input gives a third derivative too, checked against central differences of its second.
    pub order: u32,
}

/// Runs the mode; `Ok(true)` when something unexpected was found.
pub fn run(root: &Path, opts: &Options) -> Result<bool, String> {
    let started = Instant::now();
    let work = root
        .join("target")
        .join(format!("order{}-work", opts.order));
    let src_dir = work.join("src");
    let files_dir = src_dir.join("files");
    if src_dir.exists() {
        fs::remove_dir_all(&src_dir).map_err(|e| e.to_string())?;
    }
    fs::create_dir_all(&files_dir).map_err(|e| e.to_string())?;
    // The test files' modules of their own (`mod common;`, `#[path = "matrix33/harness.rs"] mod harness;`),
    // beside the copies of the files: every folder of `tests/` but the UI cases, the expansion snapshots
    // and the crate `adlib`.
    for entry in fs::read_dir(root.join("tests")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() && !["ui", "expand", "adlib"].contains(&name) {
            copy_dir(&path, &files_dir.join(name))?;
        }
    }
    copy_dir(
        &root.join("examples").join("shared"),
        &files_dir.join("shared"),
    )?;
    // A workspace of PARTS crates, each with its share of the files, which cargo builds side by side: most
    // of a build is the front end of rustc (the macros' expansion, type checking), which is one thread
    // per crate. The twins are built unoptimised (the checks run in seconds either way) and the macros
    // optimised, which expand them: a cold build took 618 s so, against 1039 s with `opt-level = 1` and
    // the macros unoptimised (2 cores, both loaded alike by other builds).
    let members: Vec<String> = (0..PARTS).map(|i| format!("\"part{i}\"")).collect();
    fs::write(
        work.join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n\n\
             [profile.dev]\nopt-level = 0\ndebug = false\nincremental = true\n\n\
             [profile.dev.build-override]\nopt-level = 2\n",
            members.join(", ")
        ),
    )
    .map_err(|e| e.to_string())?;
    for part in 0..PARTS {
        let part_src = work.join(format!("part{part}")).join("src");
        fs::create_dir_all(&part_src).map_err(|e| e.to_string())?;
        let manifest = format!(
            "[package]\nname = \"order2-part{part}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nautodiff = {{ path = {root:?} }}\nadlib = {{ path = {adlib:?} }}\nproptest = \"1\"\n\
             libm = \"0.2\"\nnum-traits = \"0.2\"\nnum-dual = {{ version = \"0.15\", default-features = false }}\n",
            root = root.display().to_string(),
            adlib = root.join("tests").join("adlib").display().to_string(),
        );
        fs::write(
            work.join(format!("part{part}")).join("Cargo.toml"),
            manifest,
        )
        .map_err(|e| e.to_string())?;
        fs::write(
            part_src.join("support.rs"),
            include_str!("../order2/support.rs"),
        )
        .map_err(|e| e.to_string())?;
    }
    if !work.join("Cargo.lock").exists() {
        let _ = fs::copy(root.join("Cargo.lock"), work.join("Cargo.lock"));
    }

    let mut sources = Vec::new();
    let mut left_out = Vec::new();
    for dir in ["tests", "examples"] {
        let mut paths: Vec<PathBuf> = fs::read_dir(root.join(dir))
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        paths.sort();
        for path in paths {
            let rel = format!(
                "{dir}/{}",
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            if let Some((_, why)) = LEFT_OUT.iter().find(|(f, _)| *f == rel) {
                left_out.push(format!("{rel}: {why}"));
                continue;
            }
            if opts
                .only
                .as_ref()
                .is_some_and(|o| !o.split(',').any(|part| rel.contains(part)))
                || opts
                    .skip
                    .as_ref()
                    .is_some_and(|s| s.split(',').any(|part| rel.contains(part)))
            {
                continue;
            }
            let text = fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let ast = syn::parse_file(&text).map_err(|e| format!("{rel}: {e}"))?;
            let module = rel.trim_end_matches(".rs").replace('/', "_");
            sources.push(Source {
                rel,
                module,
                ast,
                size: text.len(),
            });
        }
    }

    // Twins and harness functions, by id.
    let mut entries: Vec<Entry> = Vec::new();
    // The largest files first, each to the part with the fewest bytes so far.
    let mut by_size: Vec<&Source> = sources.iter().collect();
    by_size.sort_by_key(|s| std::cmp::Reverse(s.size));
    let mut load = [0usize; PARTS];
    let mut part_of: BTreeMap<String, usize> = BTreeMap::new();
    for s in by_size {
        let part = (0..PARTS).min_by_key(|&p| load[p]).unwrap_or(0);
        load[part] += s.size;
        part_of.insert(s.rel.clone(), part);
    }
    let mut files: Vec<(String, String, syn::File)> = Vec::new();
    for s in &sources {
        let mut ast = s.ast.clone();
        RootPaths { module: &s.module }.visit_file_mut(&mut ast);
        let shapes = Shapes::collect(&ast);
        let mut rewriter = Rewriter {
            order: opts.order,
            file: &s.rel,
            entries: &mut entries,
            shapes: &shapes,
        };
        rewriter.items(&mut ast.items, &[], true);
        files.push((s.rel.clone(), s.module.clone(), ast));
    }

    // Build, dropping the twins (and harness functions) that do not compile, until it passes. The twins
    // known not to compile are dropped from the start, so that a run finding nothing new builds once.
    let known = Known::read(root);
    let mut dropped_twins: BTreeSet<usize> = BTreeSet::new();
    let mut dropped_checks: BTreeSet<usize> = BTreeSet::new();
    if !opts.recheck_known {
        for (id, e) in entries.iter_mut().enumerate() {
            if known.compile.contains(&e.name) && e.out_of_scope.is_none() {
                dropped_twins.insert(id);
                dropped_checks.insert(id);
                e.compile_error = Some((
                    NOT_BUILT.to_string(),
                    "not built: listed in known.txt as not compiling (`--recheck-known` builds it)"
                        .to_string(),
                ));
            }
        }
    }
    let mut dropped_files: BTreeMap<String, String> = BTreeMap::new();
    let mut round = 0;
    loop {
        round += 1;
        let mut ranges: Vec<(String, usize, usize, Marker)> = Vec::new();
        let mut checks: Vec<Vec<(usize, String)>> = vec![Vec::new(); PARTS];
        let mut mods = vec![String::new(); PARTS];
        for (rel, module, ast) in &files {
            let part = part_of.get(rel).copied().unwrap_or(0);
            if dropped_files.contains_key(rel) {
                continue;
            }
            let mut ast = ast.clone();
            Dropper {
                twins: &dropped_twins,
                checks: &dropped_checks,
            }
            .visit_file_mut(&mut ast);
            let text = without_global_allocators(&prettyplease::unparse(&ast));
            let path = files_dir.join(format!("{module}.rs"));
            for (marker, start, end) in markers(&text) {
                if let Marker::Check(id) = marker {
                    if entries[id].checked && !dropped_checks.contains(&id) {
                        checks[part].push((id, module.clone()));
                    }
                }
                ranges.push((path.display().to_string(), start, end, marker));
            }
            fs::write(&path, text).map_err(|e| e.to_string())?;
            mods[part].push_str(&format!(
                "#[path = {:?}]\n#[allow(warnings, clippy::all)]\nmod {module};\n",
                path.display().to_string()
            ));
        }
        for part in 0..PARTS {
            let list: Vec<String> = checks[part]
                .iter()
                .map(|(id, module)| {
                    format!("({id}, {module}::__o2_dispatch_{id} as support::Check)")
                })
                .collect();
            let main = format!(
                "//! Generated by `autodiff-fuzz --order2`.\n#![allow(warnings)]\nmod support;\n{}\n\
                 fn main() {{\n    let start = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);\n    \
                 support::run(&[{}], start);\n}}\n",
                mods[part],
                list.join(", ")
            );
            fs::write(
                work.join(format!("part{part}")).join("src").join("main.rs"),
                main,
            )
            .map_err(|e| e.to_string())?;
        }
        let t = Instant::now();
        let errors = build(&work)?;
        if !opts.quiet {
            eprintln!(
                "order2: build {round}: {:.0} s, {} errors",
                t.elapsed().as_secs_f64(),
                errors.len()
            );
        }
        if errors.is_empty() {
            break;
        }
        let mut progress = false;
        for e in errors {
            let hit = e.places.iter().find_map(|(file, line)| {
                ranges
                    .iter()
                    .filter(|(f, s, end, _)| f == file && s <= line && line <= end)
                    .min_by_key(|(_, s, end, _)| end - s)
                    .map(|r| r.3)
            });
            match hit {
                Some(Marker::Twin(id)) => {
                    progress |= dropped_twins.insert(id);
                    dropped_checks.insert(id);
                    entries[id]
                        .compile_error
                        .get_or_insert((e.key.clone(), e.rendered.clone()));
                }
                Some(Marker::Check(id)) => {
                    progress |= dropped_checks.insert(id);
                    entries[id].harness_error.get_or_insert(e.rendered.clone());
                }
                None => {
                    let file = e.places.iter().find_map(|(f, _)| {
                        files
                            .iter()
                            .find(|(_, m, _)| f.ends_with(&format!("files/{m}.rs")))
                            .map(|(rel, _, _)| rel.clone())
                    });
                    match file {
                        Some(rel) if !dropped_files.contains_key(&rel) => {
                            dropped_files.insert(rel, e.rendered.clone());
                            progress = true;
                        }
                        _ => {
                            if !progress {
                                return Err(format!(
                                    "an error outside every twin:\n{}",
                                    e.rendered
                                ));
                            }
                        }
                    }
                }
            }
        }
        if !progress || round > 12 {
            return Err("the work crate still does not build".into());
        }
    }

    // Run the checks.
    for part in 0..PARTS {
        let exe = work
            .join("target")
            .join("debug")
            .join(format!("order2-part{part}"));
        for (id, outcome) in run_checks(&exe)? {
            entries[id].result = Some(outcome);
        }
    }
    let found = report(&entries, &dropped_files, &left_out, &known, opts)?;
    if !opts.quiet {
        eprintln!("order2: total {:.0} s", started.elapsed().as_secs_f64());
    }
    Ok(found)
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    if !from.exists() {
        return Ok(());
    }
    fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for e in fs::read_dir(from).map_err(|e| e.to_string())? {
        let e = e.map_err(|e| e.to_string())?;
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()))?;
        } else if e.path().extension().is_some_and(|x| x == "rs") {
            let text = fs::read_to_string(e.path()).map_err(|e| e.to_string())?;
            fs::write(to.join(e.file_name()), without_global_allocators(&text))
                .map_err(|e| e.to_string())?;
        } else {
            fs::copy(e.path(), to.join(e.file_name())).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// A test crate's `#[global_allocator]` (`tests/common/counting.rs`, which counts allocations) made a plain
/// static: the work crates hold several test files, and a crate may have only one. (An attribute of the
/// same length, so that the lines of the text do not move.)
fn without_global_allocators(text: &str) -> String {
    text.replace("#[global_allocator]", "#[allow(dead_code)]")
}

/// `crate::x` in a file becomes `crate::<its module>::x`: the file is a module of the work crate.
struct RootPaths<'a> {
    module: &'a str,
}

impl VisitMut for RootPaths<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.segments.first().is_some_and(|s| s.ident == "crate") {
            let m = format_ident!("{}", self.module);
            path.segments.insert(1, syn::parse_quote!(#m));
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
    fn visit_use_tree_mut(&mut self, tree: &mut syn::UseTree) {
        if let syn::UseTree::Path(p) = tree {
            if p.ident == "crate" {
                let m = format_ident!("{}", self.module);
                let rest = (*p.tree).clone();
                *p.tree = syn::parse_quote!(#m::#rest);
                return;
            }
        }
        syn::visit_mut::visit_use_tree_mut(self, tree);
    }
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

/// Which part of the work crate a marker pair encloses.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Marker {
    Twin(usize),
    Check(usize),
}

fn marker_item(name: &str, id: usize, end: bool) -> syn::Item {
    let ident = format_ident!("__O2_{}_{}_{}", name, if end { "END" } else { "BEGIN" }, id);
    syn::parse_quote!(#[allow(warnings)] const #ident: () = ();)
}

fn marker_impl_item(name: &str, id: usize, end: bool) -> syn::ImplItem {
    let ident = format_ident!("__O2_{}_{}_{}", name, if end { "END" } else { "BEGIN" }, id);
    syn::parse_quote!(#[allow(warnings)] const #ident: () = ();)
}

/// The line ranges (1-based, inclusive) of the marked parts of a printed file.
fn markers(text: &str) -> Vec<(Marker, usize, usize)> {
    let mut begins: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(at) = line.find("__O2_") else {
            continue;
        };
        let word: String = line[at + 5..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let parts: Vec<&str> = word.split('_').collect();
        let [kind, edge, id] = parts.as_slice() else {
            continue;
        };
        let key = format!("{kind}_{id}");
        if *edge == "BEGIN" {
            begins.insert(key, n + 1);
        } else if let (Some(start), Ok(id)) = (begins.remove(&key), id.parse()) {
            let marker = if *kind == "TWIN" {
                Marker::Twin(id)
            } else {
                Marker::Check(id)
            };
            out.push((marker, start, n + 1));
        }
    }
    out
}

/// Removes the dropped twins and harness functions (with their markers' contents) from a file.
struct Dropper<'a> {
    twins: &'a BTreeSet<usize>,
    checks: &'a BTreeSet<usize>,
}

impl Dropper<'_> {
    fn dropped(&self, ident: &syn::Ident) -> bool {
        let s = ident.to_string();
        // The module of a copy of a body's items for the check of one of its functions.
        if let Some(rest) = s.strip_prefix("__o2_body_") {
            return rest
                .parse()
                .is_ok_and(|id: usize| self.checks.contains(&id));
        }
        if let Some(rest) = s.strip_prefix("__o2_dispatch_") {
            return rest
                .parse()
                .is_ok_and(|id: usize| self.checks.contains(&id));
        }
        if let Some(at) = s.rfind("__o2_") {
            return s[at + 5..]
                .parse()
                .is_ok_and(|id: usize| self.twins.contains(&id));
        }
        false
    }
}

impl Dropper<'_> {
    /// Whether `item` stays: not a dropped twin or harness function, nor the re-export of one.
    fn keeps(&self, item: &syn::Item) -> bool {
        match item {
            syn::Item::Fn(f) => !self.dropped(&f.sig.ident),
            syn::Item::Mod(m) => !self.dropped(&m.ident),
            syn::Item::Use(u) => {
                let text = u.tree.to_token_stream().to_string();
                !self
                    .checks
                    .iter()
                    .any(|id| text.ends_with(&format!("__o2_dispatch_{id}")))
            }
            _ => true,
        }
    }
}

impl VisitMut for Dropper<'_> {
    fn visit_file_mut(&mut self, f: &mut syn::File) {
        f.items.retain(|i| self.keeps(i));
        syn::visit_mut::visit_file_mut(self, f);
    }
    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut m.content {
            items.retain(|i| self.keeps(i));
        }
        syn::visit_mut::visit_item_mod_mut(self, m);
    }
    fn visit_item_impl_mut(&mut self, i: &mut syn::ItemImpl) {
        i.items
            .retain(|i| !matches!(i, syn::ImplItem::Fn(f) if self.dropped(&f.sig.ident)));
        syn::visit_mut::visit_item_impl_mut(self, i);
    }
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        b.stmts
            .retain(|s| !matches!(s, syn::Stmt::Item(i) if !self.keeps(i)));
        syn::visit_mut::visit_block_mut(self, b);
    }
}

/// Adds the twins and harness functions to a file.
struct Rewriter<'a> {
    /// The order of the twins (`Options::order`).
    order: u32,
    file: &'a str,
    entries: &'a mut Vec<Entry>,
    /// The structs and enums of the file the harness can make.
    shapes: &'a Shapes,
}

fn attr_name(a: &syn::Attribute) -> String {
    a.path()
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// The type parameters bounded by `Float` (in their declaration or the `where` clause).
fn float_params(generics: &syn::Generics) -> Vec<String> {
    let is_float = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds.iter().any(|b| {
            matches!(b, syn::TypeParamBound::Trait(t)
                if t.path.segments.last().is_some_and(|s| s.ident == "Float"))
        })
    };
    let mut names: Vec<String> = generics
        .type_params()
        .filter(|t| is_float(&t.bounds))
        .map(|t| t.ident.to_string())
        .collect();
    for p in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        if let syn::WherePredicate::Type(t) = p {
            if is_float(&t.bounds) {
                names.push(t.bounded_ty.to_token_stream().to_string());
            }
        }
    }
    names
}

/// Calls of the function by its own name (recursion) in a twin's body call the twin: `order = 2` on
/// a recursive function differentiates the recursion at order 2.
struct Recursion<'a> {
    from: &'a syn::Ident,
    to: &'a syn::Ident,
}

impl VisitMut for Recursion<'_> {
    fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
        if let syn::Expr::Path(p) = &mut *call.func {
            if p.qself.is_none()
                && p.path.segments.len() == 1
                && p.path.segments[0].ident == *self.from
            {
                p.path.segments[0].ident = self.to.clone();
            }
        }
        syn::visit_mut::visit_expr_call_mut(self, call);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The float type a return type is, if it is one (`f64`, `f32`, or a type parameter of the function).
fn float_scalar(ty: &syn::Type, generics: &syn::Generics) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    let Some(ident) = p.path.get_ident() else {
        return false;
    };
    ident == "f64" || ident == "f32" || float_params(generics).contains(&ident.to_string())
}

/// The locals (`__p<k>`, as `Rewriter::arguments` names them) of the output parameters of `f`: its `&mut`
/// parameters of a float, a slice, `Vec` or array of floats (`floats`: the float type parameters too);
/// `None` if it has another `&mut` parameter (`&mut self`, an integer buffer), whose forward and reverse
/// items the harness does not call.
fn output_locals(f: &syn::ItemFn, floats: &[String]) -> Option<Vec<syn::Ident>> {
    let mut outs = Vec::new();
    for (k, input) in f.sig.inputs.iter().enumerate() {
        let ty = match input {
            syn::FnArg::Receiver(r) if r.mutability.is_some() => return None,
            syn::FnArg::Typed(t) => match &*t.ty {
                syn::Type::Reference(r) if r.mutability.is_some() => &r.elem,
                _ => continue,
            },
            _ => continue,
        };
        let elem = match &**ty {
            syn::Type::Slice(s) => &s.elem,
            syn::Type::Array(a) => &a.elem,
            syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec") => {
                match p.path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) => match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => t,
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            other => other,
        };
        if !scalar_type(elem, floats) {
            return None;
        }
        outs.push(format_ident!("__p{k}"));
    }
    Some(outs)
}

/// For each output parameter of `f` (as `output_locals` lists them), whether it is a float (`&mut f64`,
/// `&mut T`): `f_vjp` takes its cotangent as `impl FloatCotangent<T>` and `f_jvp` its tangent buffer as
/// `impl FloatTangentBuffer<T>`, which leave `support::ArgOf` and `BufferOf` nothing to infer their type
/// from, so the harness passes the float and `&mut` of it as they are.
fn scalar_outputs(f: &syn::ItemFn) -> Vec<bool> {
    f.sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.ty {
                syn::Type::Reference(r) if r.mutability.is_some() => Some(
                    !matches!(&*r.elem, syn::Type::Slice(_) | syn::Type::Array(_))
                        && !matches!(&*r.elem, syn::Type::Path(p)
                        if p.path.segments.last().is_some_and(|s| s.ident == "Vec")),
                ),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// `f_vjp`'s argument for the cotangent `d` of an output (a float by value, else `support::ArgOf`).
fn cotangent_arg(d: proc_macro2::TokenStream, scalar: bool) -> proc_macro2::TokenStream {
    if scalar {
        quote!(::core::clone::Clone::clone(&#d))
    } else {
        quote!(crate::support::ArgOf::arg_of(&#d))
    }
}

/// `f_jvp`'s argument for the tangent buffer `t` of an output (`&mut` of a float, else `support::BufferOf`).
fn tangent_arg(t: &syn::Ident, scalar: bool) -> proc_macro2::TokenStream {
    if scalar {
        quote!(&mut #t)
    } else {
        quote!(crate::support::BufferOf::buffer_of(&mut #t))
    }
}

/// Is `f_jvp` of `f` checked where its output parameters are (their tangents written into buffers the
/// harness makes like the outputs): `forward_checked` with each `&mut` parameter read as `&`.
fn forward_checked_with_outputs(
    f: &syn::ItemFn,
    wrt: Option<&[String]>,
    shapes: &Shapes,
    receiver: Option<&Receiver>,
) -> bool {
    let mut shared = f.clone();
    for input in &mut shared.sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            if let syn::Type::Reference(r) = &mut *t.ty {
                r.mutability = None;
            }
        }
    }
    forward_checked(&shared, wrt, shapes, receiver)
}

/// Is `ty` a float scalar (`f64`, `f32`, a float type parameter) or a shared reference to one?
fn scalar_type(ty: &syn::Type, floats: &[String]) -> bool {
    match ty {
        syn::Type::Reference(r) => r.mutability.is_none() && scalar_type(&r.elem, floats),
        syn::Type::Paren(p) => scalar_type(&p.elem, floats),
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| i == "f64" || i == "f32" || floats.contains(&i.to_string())),
        _ => false,
    }
}

/// The harness function of check `id`, `__o2_dispatch_<id>(config, source, ask) -> Eval`, around `body`
/// (which reads `__c`, `__src` and `__ask`).
fn dispatch(id: usize, body: proc_macro2::TokenStream) -> syn::Item {
    let name = format_ident!("__o2_dispatch_{id}");
    syn::parse_quote! {
        #[allow(warnings, clippy::all)]
        pub(crate) fn #name(
            __c: &crate::support::Config,
            __src: &mut crate::support::Source,
            __ask: crate::support::Ask,
        ) -> crate::support::Eval {
            #body
        }
    }
}

/// Is `f_jvp` of `f` checked against its `f_grad`: its tangent is made of floats, slices, `Vec`s, arrays,
/// tuples and the structs of its file that the harness makes (the harness's `Cotangent`; `self` too where
/// `wrt(self)` makes it active) and it has no output parameter (whose tangents `f_jvp` would write into
/// buffers)?
fn forward_checked(
    f: &syn::ItemFn,
    wrt: Option<&[String]>,
    shapes: &Shapes,
    receiver: Option<&Receiver>,
) -> bool {
    let made = |name: &str| shapes.why_not(name).is_none();
    let plain = |ty: &syn::Type, floats: &[String]| plain_tangent(ty, floats, &made);
    let mut floats = float_params(&f.sig.generics);
    floats.extend(receiver.iter().flat_map(|r| r.floats.iter().cloned()));
    f.sig.inputs.iter().all(|input| match input {
        syn::FnArg::Typed(t) => plain(&t.ty, &floats),
        syn::FnArg::Receiver(r) => {
            r.mutability.is_none()
                && (!wrt.is_some_and(|w| w.iter().any(|n| n == "self"))
                    || receiver.is_some_and(|recv| made(&recv.name)))
        }
    })
}

/// Is `ty` (a parameter's type) made of floats, integers, slices, `Vec`s, arrays, tuples and types `made`
/// says the harness makes, without `&mut`?
fn plain_tangent(ty: &syn::Type, floats: &[String], made: &dyn Fn(&str) -> bool) -> bool {
    let plain = |ty: &syn::Type, floats: &[String]| plain_tangent(ty, floats, made);
    match ty {
        syn::Type::Reference(r) => r.mutability.is_none() && plain(&r.elem, floats),
        syn::Type::Slice(s) => plain(&s.elem, floats),
        syn::Type::Array(a) => plain(&a.elem, floats),
        syn::Type::Paren(p) => plain(&p.elem, floats),
        syn::Type::Tuple(t) => t.elems.iter().all(|e| plain(e, floats)),
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.iter().all(|seg| {
            let name = seg.ident.to_string();
            let known = floats.contains(&name)
                || (p.path.segments.len() == 1 && made(&name))
                || matches!(
                    name.as_str(),
                    "f64"
                        | "f32"
                        | "Vec"
                        | "usize"
                        | "isize"
                        | "u8"
                        | "u16"
                        | "u32"
                        | "u64"
                        | "i8"
                        | "i16"
                        | "i32"
                        | "i64"
                        | "bool"
                        | "str"
                        | "std"
                        | "vec"
                );
            known
                && match &seg.arguments {
                    syn::PathArguments::None => true,
                    syn::PathArguments::AngleBracketed(a) => a.args.iter().all(|g| match g {
                        syn::GenericArgument::Type(t) => plain(t, floats),
                        _ => false,
                    }),
                    syn::PathArguments::Parenthesized(_) => false,
                }
        }),
        _ => false,
    }
}

/// The names in `wrt(..)` of a `#[differentiable(..)]` attribute, if it has one.
fn wrt_of(attr: &syn::Attribute) -> Option<Vec<String>> {
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let tokens: Vec<proc_macro2::TokenTree> = list.tokens.clone().into_iter().collect();
    tokens.windows(2).find_map(|w| match w {
        [proc_macro2::TokenTree::Ident(i), proc_macro2::TokenTree::Group(g)] if i == "wrt" => Some(
            g.stream()
                .into_iter()
                .filter_map(|t| match t {
                    proc_macro2::TokenTree::Ident(i) => Some(i.to_string()),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    })
}

/// How the harness passes a parameter it made.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    /// A clone of it.
    Value,
    /// `&it`.
    Shared,
    /// `&mut it`: an output parameter, made anew for each call from the point's floats (its incoming
    /// value), which are in the gradient only if the function reads them (`Source::output`).
    Mutable,
}

/// A tuple: the element of a slice, `Vec` or array of tuples, which the macro reads as data
/// (`tuple_data.rs`), so that the harness makes it but never perturbs its floats.
fn is_tuple(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(_))
}

/// What the harness can make for a function: its float type parameters (made as `f64`), its other type
/// parameters (which it cannot make), and the structs and enums of its file.
struct Scope<'a> {
    floats: Vec<String>,
    params: Vec<String>,
    shapes: &'a Shapes,
}

/// A type as text for the report, `& [f64]` printed `&[f64]`.
fn shown(ty: &impl ToTokens) -> String {
    ty.to_token_stream()
        .to_string()
        .replace("& ", "&")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("< ", "<")
        .replace(" ,", ",")
}

/// The type the harness makes for a parameter of type `ty` (`Vec<f64>` for `&[T]` and `&mut [T]`, a struct
/// of the file with its float type parameters `f64`), how it passes it, and whether it holds floats
/// that are differentiated (a struct's only if it derives `Differentiable`); else why it cannot make it.
fn owned(ty: &syn::Type, scope: &Scope) -> Result<(syn::Type, Pass, bool), String> {
    fn inner(ty: &syn::Type, scope: &Scope) -> Result<(syn::Type, bool), String> {
        let cannot = || Err(String::new());
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return cannot();
                };
                let name = last.ident.to_string();
                if p.path.segments.len() == 1 && scope.floats.contains(&name) {
                    return Ok((syn::parse_quote!(f64), true));
                }
                if p.path.segments.len() == 1 && scope.params.contains(&name) {
                    return Err("a type parameter that is not a float".into());
                }
                const PLAIN: &[&str] = &[
                    "f64", "f32", "usize", "u8", "u16", "u32", "u64", "isize", "i8", "i16", "i32",
                    "i64", "bool",
                ];
                if PLAIN.contains(&name.as_str()) && p.path.segments.len() == 1 {
                    return Ok((ty.clone(), name.starts_with('f')));
                }
                // Text (`&str`, `String`): a fixed word (`support.rs`).
                if (name == "str" || name == "String") && p.path.segments.len() == 1 {
                    return Ok((syn::parse_quote!(::std::string::String), false));
                }
                if name == "Vec" {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                        if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                            let (t, f) = inner(t, scope)?;
                            let f = f && !is_tuple(&t);
                            return Ok((syn::parse_quote!(::std::vec::Vec<#t>), f));
                        }
                    }
                    return cannot();
                }
                // A struct or enum of the file, its type arguments made as parameters are.
                if let Some(why) = scope.shapes.why_not(&name) {
                    return Err(why);
                }
                let mut path = p.clone();
                if let Some(syn::PathSegment {
                    arguments: syn::PathArguments::AngleBracketed(a),
                    ..
                }) = path.path.segments.last_mut()
                {
                    for arg in a.args.iter_mut() {
                        match arg {
                            syn::GenericArgument::Type(t) => *t = inner(t, scope)?.0,
                            syn::GenericArgument::Lifetime(_) => return cannot(),
                            _ => {}
                        }
                    }
                }
                Ok((syn::Type::Path(path), scope.shapes.differentiable(&name)))
            }
            syn::Type::Array(a) => {
                let (t, f) = inner(&a.elem, scope)?;
                let f = f && !is_tuple(&t);
                let len = &a.len;
                Ok((syn::parse_quote!([#t; #len]), f))
            }
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                let mut parts = Vec::new();
                let mut any = false;
                for e in &t.elems {
                    // A shared reference in a tuple (`(&[f64], f64)`, `(&f64, &f64)`): its owned value,
                    // which `argument` borrows.
                    let (e, f) = match e {
                        syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
                            syn::Type::Slice(s) => {
                                let (t, f) = inner(&s.elem, scope)?;
                                let f = f && !is_tuple(&t);
                                (syn::parse_quote!(::std::vec::Vec<#t>), f)
                            }
                            elem => inner(elem, scope)?,
                        },
                        e => inner(e, scope)?,
                    };
                    parts.push(e);
                    any |= f;
                }
                Ok((syn::parse_quote!((#(#parts,)*)), any))
            }
            syn::Type::Paren(p) => inner(&p.elem, scope),
            _ => cannot(),
        }
    }
    let why = |e: String| {
        if e.is_empty() {
            format!("a parameter of type `{}`", shown(ty))
        } else {
            format!("a parameter of type `{}`: {e}", shown(ty))
        }
    };
    match ty {
        syn::Type::Reference(r) => {
            let pass = match r.mutability {
                Some(_) => Pass::Mutable,
                None => Pass::Shared,
            };
            match &*r.elem {
                syn::Type::Slice(s) => {
                    let (t, f) = inner(&s.elem, scope).map_err(why)?;
                    let f = f && !is_tuple(&t);
                    Ok((syn::parse_quote!(::std::vec::Vec<#t>), pass, f))
                }
                elem => inner(elem, scope).map(|(t, f)| (t, pass, f)).map_err(why),
            }
        }
        _ => inner(ty, scope)
            .map(|(t, f)| (t, Pass::Value, f))
            .map_err(why),
    }
}

/// The argument passed for a parameter of type `ty` taken by value from the harness's `local` of the type
/// `owned` made: a tuple holding references borrows its elements (`(&local.0[..], local.1)`), anything
/// else is moved.
fn argument(ty: &syn::Type, local: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    match ty {
        syn::Type::Tuple(t) if holds_reference(ty) => {
            let parts = t.elems.iter().enumerate().map(|(k, e)| {
                let k = syn::Index::from(k);
                argument(e, quote!(#local.#k))
            });
            quote!((#(#parts,)*))
        }
        syn::Type::Paren(p) => argument(&p.elem, local),
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(_) => quote!(&#local[..]),
            _ => quote!(&#local),
        },
        _ => local,
    }
}

/// Whether a type holds a reference (a tuple of them needs `argument`).
fn holds_reference(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(_) => true,
        syn::Type::Tuple(t) => t.elems.iter().any(holds_reference),
        syn::Type::Paren(p) => holds_reference(&p.elem),
        _ => false,
    }
}

/// `Self` in a method's parameter types, replaced by the concrete type the harness calls it on (the
/// harness's functions are outside the `impl`).
struct SelfType<'a>(&'a syn::Type);

impl VisitMut for SelfType<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none() && p.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// A function's const generic parameters replaced by 3 and its type parameters that are not floats by
/// `usize`, in a parameter's type.
struct Fixed {
    consts: Vec<String>,
    types: Vec<String>,
}

impl VisitMut for Fixed {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| self.types.contains(&i.to_string()))
            {
                *ty = syn::parse_quote!(usize);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Path(p) = e {
            if p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| self.consts.contains(&i.to_string()))
            {
                *e = syn::parse_quote!(3);
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// Type parameters named in `floats` replaced by `f64`.
struct FloatsAsF64<'a>(&'a [String]);

impl VisitMut for FloatsAsF64<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| self.0.contains(&i.to_string()))
            {
                *ty = syn::parse_quote!(f64);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The `impl` block a method's twin is in, as the harness calls it: its type with the impl's float type
/// parameters `f64` (`Quad<f64>`), and the name of that type, which a receiver needs the census to make.
struct Receiver {
    self_ty: syn::Type,
    name: String,
    floats: Vec<String>,
}

impl Receiver {
    /// The harness's view of `impl .. Ty { .. }`, or why it cannot call its methods.
    fn of(i: &syn::ItemImpl) -> Result<Receiver, String> {
        let floats = float_params(&i.generics);
        if i.generics.lifetimes().next().is_some() {
            return Err("a method of an impl with lifetime parameters".into());
        }
        if i.generics.const_params().next().is_some() {
            return Err("a method of an impl with const generic parameters".into());
        }
        if let Some(t) = i
            .generics
            .type_params()
            .find(|t| !floats.contains(&t.ident.to_string()))
        {
            return Err(format!(
                "a method of an impl generic over `{}`, which is not a float",
                t.ident
            ));
        }
        let mut self_ty = (*i.self_ty).clone();
        FloatsAsF64(&floats).visit_type_mut(&mut self_ty);
        let name = match &self_ty {
            syn::Type::Path(p) if p.qself.is_none() => p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default(),
            _ => {
                return Err(format!(
                    "a method of `{}`, not a named type",
                    shown(&self_ty)
                ))
            }
        };
        Ok(Receiver {
            self_ty,
            name,
            floats,
        })
    }
}

impl Rewriter<'_> {
    fn new_entry(&mut self, path: &[String], name: &syn::Ident, kind: Kind) -> usize {
        let mut full = vec![self.file.to_string()];
        full.extend(path.iter().cloned());
        full.push(name.to_string());
        self.entries.push(Entry {
            name: full.join("::"),
            kind,
            out_of_scope: None,
            no_numerics: None,
            compile_error: None,
            harness_error: None,
            result: None,
            checked: false,
        });
        self.entries.len() - 1
    }

    /// The twin of `f` (with its id in its name), or `None` if `f` is not a function with derivatives, or
    /// `Err(id)` for one whose result is not one float.
    fn twin(
        &mut self,
        f: &syn::ItemFn,
        path: &[String],
        numerics: Option<&str>,
    ) -> Option<(usize, syn::ItemFn)> {
        let attr = f.attrs.iter().find(|a| {
            matches!(
                attr_name(a).as_str(),
                "differentiable" | "custom_gradient" | "gradient_of"
            )
        })?;
        let kind = match attr_name(attr).as_str() {
            "differentiable" => Kind::Differentiable,
            "custom_gradient" => Kind::Custom,
            _ => Kind::Registered,
        };
        let id = self.new_entry(path, &f.sig.ident, kind);
        let twin_name = format_ident!("{}__o2_{}", f.sig.ident, id);
        let value_ty: Option<syn::Type> = match (&f.sig.output, kind) {
            (syn::ReturnType::Type(_, t), Kind::Differentiable) => Some((**t).clone()),
            (syn::ReturnType::Type(_, t), Kind::Custom) => match &**t {
                syn::Type::Tuple(t) => t.elems.first().cloned(),
                _ => None,
            },
            (_, Kind::Registered) => match f.sig.inputs.last() {
                Some(syn::FnArg::Typed(t)) => Some((*t.ty).clone()),
                _ => None,
            },
            _ => None,
        };
        let value_ty = match value_ty {
            Some(t) if float_scalar(&t, &f.sig.generics) => t,
            other => {
                self.entries[id].out_of_scope = Some(format!(
                    "its result is {}, not one float",
                    other.map_or("()".into(), |t| t.to_token_stream().to_string())
                ));
                return None;
            }
        };
        let order = syn::LitInt::new(&self.order.to_string(), proc_macro2::Span::call_site());
        let mut twin = f.clone();
        Recursion {
            from: &f.sig.ident,
            to: &twin_name,
        }
        .visit_block_mut(&mut twin.block);
        twin.sig.ident = twin_name;
        twin.attrs
            .retain(|a| !matches!(attr_name(a).as_str(), "test" | "doc"));
        twin.attrs
            .push(syn::parse_quote!(#[allow(warnings, clippy::all)]));
        match kind {
            Kind::Differentiable => {
                for a in &mut twin.attrs {
                    if attr_name(a) != "differentiable" {
                        continue;
                    }
                    let path = a.path().clone();
                    let has_order = a.to_token_stream().to_string().contains("order");
                    *a = match &a.meta {
                        // A function's own `order = 2` is raised to the census's order; a higher one
                        // is kept.
                        syn::Meta::List(l) if has_order => {
                            let tokens = l
                                .tokens
                                .to_string()
                                .replace("order = 2", &format!("order = {}", self.order.max(2)));
                            let tokens: proc_macro2::TokenStream =
                                tokens.parse().unwrap_or_else(|_| l.tokens.clone());
                            syn::parse_quote!(#[#path(#tokens)])
                        }
                        syn::Meta::List(l) => {
                            let tokens = &l.tokens;
                            syn::parse_quote!(#[#path(#tokens, order = #order)])
                        }
                        _ => syn::parse_quote!(#[#path(order = #order)]),
                    };
                }
            }
            Kind::Custom | Kind::Registered => {
                // `#[differentiable(order = 2)] fn f__o2(__a0: A0, ..) -> R { f(__a0, ..) }`
                let mut inputs: Vec<syn::PatType> = f
                    .sig
                    .inputs
                    .iter()
                    .filter_map(|i| match i {
                        syn::FnArg::Typed(t) => Some(t.clone()),
                        syn::FnArg::Receiver(_) => None,
                    })
                    .collect();
                if kind == Kind::Registered {
                    inputs.pop();
                }
                let args: Vec<syn::Ident> =
                    (0..inputs.len()).map(|i| format_ident!("__a{i}")).collect();
                let types = inputs.iter().map(|t| &t.ty);
                // A registered gradient is found by the path it registers (`libm::erf(..)`, README,
                // "Calls"), or by the function's name in scope for a one-segment path.
                let callee: syn::Path = if kind == Kind::Registered {
                    match attr.parse_args::<syn::Path>() {
                        Ok(p) if p.segments.len() >= 2 => p,
                        Ok(p) => match p.segments.last() {
                            Some(last) => {
                                let name = &last.ident;
                                syn::parse_quote!(#name)
                            }
                            None => return None,
                        },
                        Err(_) => return None,
                    }
                } else {
                    let name = &f.sig.ident;
                    syn::parse_quote!(#name)
                };
                let (name, vis, generics) = (&twin.sig.ident, &f.vis, &f.sig.generics);
                let where_clause = &generics.where_clause;
                twin = syn::parse_quote! {
                    #[::autodiff::differentiable(order = #order)]
                    #[allow(warnings, clippy::all)]
                    #vis fn #name #generics (#(#args: #types),*) -> #value_ty #where_clause {
                        #callee(#(#args),*)
                    }
                };
            }
        }
        if let Some(why) = numerics {
            self.entries[id].no_numerics = Some(why.to_string());
        }
        Some((id, twin))
    }

    /// The harness function of twin `id`: `__o2_dispatch_<id>(config, source, ask) -> Eval`, which calls the
    /// twin, its `_grad`, `_hessian`, `_jvp`, `_hvp`, `_grad_into` or `_derivatives` as `ask` says; a method's
    /// (`receiver`: its `impl`) is called as `<Ty>::f__o2_<id>_hessian(&self_, ..)`.
    fn check(
        &mut self,
        id: usize,
        twin: &syn::ItemFn,
        wrt: Option<Vec<String>>,
        receiver: Option<&Receiver>,
    ) -> Option<syn::Item> {
        let mut floats = float_params(&twin.sig.generics);
        floats.extend(receiver.iter().flat_map(|r| r.floats.iter().cloned()));
        let outs = output_locals(twin, &floats);
        let tangents = outs.is_some()
            && forward_checked_with_outputs(twin, wrt.as_deref(), self.shapes, receiver);
        let outs = outs.unwrap_or_default();
        let (lets, args, _, one_scalar) = self.arguments(id, twin, wrt, receiver, None)?;
        let name = &twin.sig.ident;
        let item = |suffix: &str| {
            let item = format_ident!("{name}_{suffix}");
            match receiver {
                Some(r) => {
                    let ty = &r.self_ty;
                    quote!(<#ty>::#item)
                }
                None => quote!(#item),
            }
        };
        let value = match receiver {
            Some(r) => {
                let ty = &r.self_ty;
                quote!(<#ty>::#name)
            }
            None => quote!(#name),
        };
        let (grad, jvp, hessian) = (item("grad"), item("jvp"), item("hessian"));
        let (hvp, grad_into, vjp) = (item("hvp"), item("grad_into"), item("vjp"));
        // Forward mode against reverse mode: `f_jvp` for a fixed tangent shaped like the gradient against
        // the gradient's inner product with it; with output parameters, `f_jvp`'s tangents of the value
        // and the outputs (written into buffers of garbage) seen through a cotangent `d` against `f_vjp`'s
        // gradient for `d` seen through the tangent.
        let touts: Vec<syn::Ident> = outs.iter().map(|o| format_ident!("{o}_t")).collect();
        let scalars = scalar_outputs(twin);
        let d_outs = (1..=outs.len()).map(|k| {
            let scalar = scalars.get(k - 1).copied().unwrap_or(false);
            let k = syn::Index::from(k);
            cotangent_arg(quote!(__d.#k), scalar)
        });
        let t_outs: Vec<proc_macro2::TokenStream> = (touts.iter().enumerate())
            .map(|(k, t)| tangent_arg(t, scalars.get(k).copied().unwrap_or(false)))
            .collect();
        let tangent = if tangents && !outs.is_empty() {
            quote! {
                #(
                    let mut #touts = ::core::clone::Clone::clone(&#outs);
                    crate::support::Fill::fill(&mut #touts, 7.25);
                )*
                let (_, __dv) = #jvp(
                    #(#args,)*
                    ::core::clone::Clone::clone(&__t),
                    #(#t_outs),*
                );
                let __k = &mut 0usize;
                let __d = (
                    crate::support::Cotangent::cotangent(&__dv, __k),
                    #(crate::support::Cotangent::cotangent(&#touts, __k),)*
                );
                let __g = {
                    let __src = &mut __src.replay();
                    #(#lets)*
                    #vjp(#(#args,)* __d.0, #(#d_outs),*).1
                };
                crate::support::Eval::through(&(__dv, #(#touts,)*), &__d, &__g, &__t)
            }
        } else if tangents {
            quote! {
                let (_, __dv) = #jvp(#(#args,)* ::core::clone::Clone::clone(&__t));
                crate::support::Eval::tangent(__dv, &__gradient, &__t)
            }
        } else {
            quote!(crate::support::Eval::without_hessian())
        };
        // `f_derivatives`, emitted for one scalar active input alone.
        let derivatives = if one_scalar {
            let derivatives = item("derivatives");
            quote! {
                crate::support::Ask::Derivatives => {
                    crate::support::Eval::derivatives(&#derivatives(#(#args),*)[..])
                }
            }
        } else {
            quote!()
        };
        Some(dispatch(
            id,
            quote! {
                // The items that take a tangent or buffers shaped like the gradient: `f_grad`'s at the
                // same point, made again, gives the shape.
                if let crate::support::Ask::Tangent
                | crate::support::Ask::Hvp
                | crate::support::Ask::Into(_) = __ask
                {
                    let __gradient = {
                        let __src = &mut __src.replay();
                        #(#lets)*
                        #grad(#(#args),*).1
                    };
                    let __t = crate::support::Cotangent::cotangent(&__gradient, &mut 0);
                    #(#lets)*
                    return match __ask {
                        crate::support::Ask::Hvp => {
                            let __v = crate::support::Cotangent::cotangent(&__gradient, &mut 0);
                            let (__r, __g, __hv) = #hvp(#(#args,)* __v);
                            crate::support::Eval::hvp(__r, &__g, &__hv, &__t)
                        }
                        crate::support::Ask::Into(__fill) => {
                            let mut __b = __gradient;
                            crate::support::Fill::fill(&mut __b, __fill);
                            let __r = #grad_into(#(#args,)* crate::support::BufferOf::buffer_of(&mut __b));
                            crate::support::Eval::new(__r, &__b, None::<&::std::vec::Vec<f64>>)
                        }
                        _ => { #tangent }
                    };
                }
                #(#lets)*
                match __ask {
                    #derivatives
                    crate::support::Ask::Hessian => {
                        let (__v, __g, __h) = #hessian(#(#args),*);
                        crate::support::Eval::new(__v, &__g, Some(&__h))
                    }
                    crate::support::Ask::Gradient => {
                        let (__v, __g) = #grad(#(#args),*);
                        crate::support::Eval::new(__v, &__g, None::<&::std::vec::Vec<::std::vec::Vec<f64>>>)
                    }
                    crate::support::Ask::Value => {
                        let __v = #value(#(#args),*);
                        crate::support::Eval::new(__v, &::std::vec::Vec::<f64>::new(), None::<&::std::vec::Vec<::std::vec::Vec<f64>>>)
                    }
                    _ => crate::support::Eval::without_hessian(),
                }
            },
        ))
    }

    /// The first-order check of `f` if `twin` made an entry for it (from index `before` on) and left it out
    /// only because its result is not one float: a `#[differentiable]` function returning a tuple, array
    /// or `Vec`, or writing output parameters (`&mut` parameters; not `&mut self`) beside its result or
    /// `()` (`vjp_check`).
    fn first_order(
        &mut self,
        before: usize,
        f: &syn::ItemFn,
        wrt: Option<Vec<String>>,
        receiver: Option<&Receiver>,
    ) -> Option<(usize, syn::Item)> {
        let id = before;
        let e = self.entries.get(id)?;
        if e.kind != Kind::Differentiable || e.out_of_scope.is_none() {
            return None;
        }
        let ret = match &f.sig.output {
            syn::ReturnType::Type(_, ret) if !matches!(&**ret, syn::Type::Tuple(t) if t.elems.is_empty()) => {
                Some(&**ret)
            }
            _ => None,
        };
        let mut floats = float_params(&f.sig.generics);
        floats.extend(receiver.iter().flat_map(|r| r.floats.iter().cloned()));
        let outputs = output_locals(f, &floats)?;
        if ret.is_none() && outputs.is_empty() {
            return None;
        }
        let check = self.vjp_check(id, f, ret, wrt, receiver)?;
        self.entries[id].checked = true;
        Some((id, check))
    }

    /// The harness function of `f` (first order, not a twin), a `#[differentiable]` function whose result
    /// `ret` is not one float (a tuple, an array, a `Vec`; `None` for `()`) or which writes output
    /// parameters: `__o2_dispatch_<id>(config, source, ask)` gives as its value the inner product of `f`'s
    /// results (its result and the final values of its outputs, in declaration order) with a fixed
    /// cotangent `d` shaped like them (`support::Cotangent`), and as its gradient `f_vjp`'s for that `d`
    /// (`d_ret`, then one `d_out` per output), so that the check compares `f_vjp` with central differences
    /// of `<d, f(x)>`; it has no Hessian. Where `f_jacobian` exists (a `Vec` or array result and no output,
    /// or `()` and one output), its rows seen through `d` are compared with `f_vjp`'s gradient.
    fn vjp_check(
        &mut self,
        id: usize,
        f: &syn::ItemFn,
        ret: Option<&syn::Type>,
        wrt: Option<Vec<String>>,
        receiver: Option<&Receiver>,
    ) -> Option<syn::Item> {
        let mut floats = float_params(&f.sig.generics);
        floats.extend(receiver.iter().flat_map(|r| r.floats.iter().cloned()));
        let outs = output_locals(f, &floats)?;
        let array = |ty: &syn::Type| match ty {
            syn::Type::Array(_) => true,
            syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Vec"),
            _ => false,
        };
        // `f_jacobian` is emitted for a `Vec` or array result without outputs, or `()` and one output
        // (API.md).
        let rows = match ret {
            Some(syn::Type::Paren(p)) => outs.is_empty() && array(&p.elem),
            Some(other) => outs.is_empty() && array(other),
            None => outs.len() == 1,
        };
        let tangents = forward_checked_with_outputs(f, wrt.as_deref(), self.shapes, receiver);
        let (lets, args, ret, _) = self.arguments(id, f, wrt, receiver, ret)?;
        let single = f.sig.to_token_stream().to_string().contains("f32");
        let name = &f.sig.ident;
        let (vjp, jvp) = (format_ident!("{name}_vjp"), format_ident!("{name}_jvp"));
        let jacobian = format_ident!("{name}_jacobian");
        let (value, vjp, jvp, jacobian) = match receiver {
            Some(r) => {
                let ty = &r.self_ty;
                (
                    quote!(<#ty>::#name),
                    quote!(<#ty>::#vjp),
                    quote!(<#ty>::#jvp),
                    quote!(<#ty>::#jacobian),
                )
            }
            None => (quote!(#name), quote!(#vjp), quote!(#jvp), quote!(#jacobian)),
        };
        // Its rows through the cotangent against `f_vjp`'s gradient for it.
        let jacobian = if rows {
            quote! {
                crate::support::Ask::Jacobian => {
                    crate::support::Eval::jacobian(&#jacobian(#(#args),*), &__d, #single)
                }
            }
        } else {
            quote!()
        };
        // The results: `__r` (the returned value, if not `()`), then the outputs; the cotangent `__d` is a
        // tuple of one for each, `d_ret` passed by value, each `d_out` as `f_vjp` takes it
        // (`support::ArgOf`: `&[T]`, `&[T; N]`, or a float).
        let results: Vec<proc_macro2::TokenStream> = ret
            .iter()
            .map(|_| quote!(__r))
            .chain(outs.iter().map(|o| quote!(#o)))
            .collect();
        let offset = usize::from(ret.is_some());
        let d_ret = ret
            .iter()
            .map(|_| quote!(::core::clone::Clone::clone(&__d.0)));
        let scalars = scalar_outputs(f);
        let d_outs = (0..outs.len()).map(|k| {
            let scalar = scalars.get(k).copied().unwrap_or(false);
            let k = syn::Index::from(k + offset);
            cotangent_arg(quote!(__d.#k), scalar)
        });
        let (bind, vjp_result) = match &ret {
            Some(ret) => (quote!(let __r: #ret), quote!((__r, __g))),
            None => (quote!(let _), quote!(__g)),
        };
        let d_ret: Vec<proc_macro2::TokenStream> = d_ret.collect();
        let d_outs: Vec<proc_macro2::TokenStream> = d_outs.collect();
        // Forward mode against reverse mode: `f_jvp` along a tangent `t` shaped like the gradient, writing
        // the outputs' tangents into buffers of garbage (which it must overwrite), seen through `d`, against
        // `f_vjp`'s gradient for `d` seen through `t`.
        let tangent = if tangents {
            let touts: Vec<syn::Ident> = outs.iter().map(|o| format_ident!("{o}_t")).collect();
            let t_outs: Vec<proc_macro2::TokenStream> = (touts.iter().enumerate())
                .map(|(k, t)| tangent_arg(t, scalars.get(k).copied().unwrap_or(false)))
                .collect();
            let (dv, tresults) = match &ret {
                Some(_) => (quote!((_, __dv)), quote!(__dv,)),
                None => (quote!(()), quote!()),
            };
            quote! {
                let __g = {
                    let __src = &mut __src.replay();
                    #(#lets)*
                    let #vjp_result = #vjp(#(#args,)* #(#d_ret,)* #(#d_outs),*);
                    __g
                };
                let __t = crate::support::Cotangent::cotangent(&__g, &mut 0);
                #(#lets)*
                #(
                    let mut #touts = ::core::clone::Clone::clone(&#outs);
                    crate::support::Fill::fill(&mut #touts, 7.25);
                )*
                let #dv = #jvp(
                    #(#args,)*
                    ::core::clone::Clone::clone(&__t),
                    #(#t_outs),*
                );
                crate::support::Eval::through(&(#tresults #(#touts,)*), &__d, &__g, &__t)
            }
        } else {
            quote!(crate::support::Eval::without_hessian())
        };
        Some(dispatch(
            id,
            quote! {
                // The results' shapes, for the cotangent, from a call on the same point made again.
                let __d = {
                    let __src = &mut __src.replay();
                    #(#lets)*
                    #bind = #value(#(#args),*);
                    let __k = &mut 0usize;
                    (#(crate::support::Cotangent::cotangent(&#results, __k),)*)
                };
                if __ask == crate::support::Ask::Tangent {
                    return { #tangent };
                }
                #(#lets)*
                match __ask {
                    #jacobian
                    crate::support::Ask::Gradient => {
                        let #vjp_result = #vjp(#(#args,)* #(#d_ret,)* #(#d_outs),*);
                        crate::support::Eval::projected(&(#(#results,)*), &__d, &__g, #single)
                    }
                    crate::support::Ask::Value => {
                        #bind = #value(#(#args),*);
                        crate::support::Eval::projected(&(#(#results,)*), &__d, &::std::vec::Vec::<f64>::new(), #single)
                    }
                    _ => crate::support::Eval::without_hessian(),
                }
            },
        ))
    }

    /// The `let`s that make the arguments of `f` from the point (`__src`) and the arguments themselves,
    /// the type `ret` (a result) with the harness's choices of float and const parameters, and whether
    /// the one active input is a float scalar (so that `f_derivatives` exists: one float parameter, by
    /// value or `&`, active, no other active parameter, no output parameter, no active `self`), or `None`
    /// (the entry's `no_numerics` says why) if the harness cannot make them.
    #[allow(clippy::type_complexity)]
    fn arguments(
        &mut self,
        id: usize,
        twin: &syn::ItemFn,
        wrt: Option<Vec<String>>,
        receiver: Option<&Receiver>,
        ret: Option<&syn::Type>,
    ) -> Option<(
        Vec<proc_macro2::TokenStream>,
        Vec<proc_macro2::TokenStream>,
        Option<syn::Type>,
        bool,
    )> {
        let mut floats = float_params(&twin.sig.generics);
        floats.extend(receiver.iter().flat_map(|r| r.floats.iter().cloned()));
        // A const generic parameter is made 3 (`[f64; 3]` for `[f64; N]`); a type parameter that is not
        // a float, `usize` (`U: Copy` of a parameter passed through): rustc infers them from the arguments.
        let mut fixed = Fixed {
            consts: twin
                .sig
                .generics
                .const_params()
                .map(|c| c.ident.to_string())
                .collect(),
            types: twin
                .sig
                .generics
                .type_params()
                .map(|t| t.ident.to_string())
                .filter(|t| !floats.contains(t))
                .collect(),
        };
        let scope = Scope {
            params: twin
                .sig
                .generics
                .type_params()
                .map(|t| t.ident.to_string())
                .collect(),
            floats,
            shapes: self.shapes,
        };
        let mut lets = Vec::new();
        let mut args = Vec::new();
        // Active inputs: how many are float scalars, and how many are anything else (or outputs).
        let (mut scalars, mut others) = (0usize, 0usize);
        for (k, input) in twin.sig.inputs.iter().enumerate() {
            let local = format_ident!("__p{k}");
            let t = match (input, receiver) {
                (syn::FnArg::Typed(t), _) => t,
                (syn::FnArg::Receiver(r), Some(recv)) if r.colon_token.is_none() => {
                    // `self`, `&self`, `&mut self`: a value of the impl's type, constant unless `wrt(self)`.
                    if let Some(why) = self.shapes.why_not(&recv.name) {
                        self.entries[id].no_numerics =
                            Some(format!("a method of `{}`: {why}", shown(&recv.self_ty)));
                        return None;
                    }
                    let active = self.shapes.differentiable(&recv.name)
                        && wrt.as_ref().is_some_and(|w| w.iter().any(|n| n == "self"));
                    let ty = &recv.self_ty;
                    let mutable = r.reference.is_some() && r.mutability.is_some();
                    others += usize::from(active || mutable);
                    lets.push(if mutable {
                        quote!(let mut #local: #ty = __src.take(#active, __c);)
                    } else {
                        quote!(let #local: #ty = __src.take(#active, __c);)
                    });
                    args.push(match (&r.reference, mutable) {
                        (None, _) => quote!(#local),
                        (Some(_), false) => quote!(&#local),
                        (Some(_), true) => quote!(&mut #local),
                    });
                    continue;
                }
                (syn::FnArg::Receiver(r), _) => {
                    self.entries[id].no_numerics = Some(format!("a method taking `{}`", shown(r)));
                    return None;
                }
            };
            let mut param_ty = (*t.ty).clone();
            if let Some(recv) = receiver {
                SelfType(&recv.self_ty).visit_type_mut(&mut param_ty);
            }
            fixed.visit_type_mut(&mut param_ty);
            let (ty, pass, float) = match owned(&param_ty, &scope) {
                Ok(made) => made,
                Err(why) => {
                    self.entries[id].no_numerics = Some(why);
                    return None;
                }
            };
            let name = match &*t.pat {
                syn::Pat::Ident(i) => i.ident.to_string(),
                _ => String::new(),
            };
            let active = float && wrt.as_ref().is_none_or(|w| w.contains(&name));
            if pass == Pass::Mutable || (active && !scalar_type(&param_ty, &scope.floats)) {
                others += 1;
            } else if active {
                scalars += 1;
            }
            args.push(match pass {
                // Moved (a struct need not be `Clone`): the harness makes its values anew for each call.
                Pass::Value => argument(&param_ty, quote!(#local)),
                Pass::Shared => quote!(&#local),
                Pass::Mutable => quote!(&mut #local),
            });
            if pass == Pass::Mutable {
                // Its floats are in the gradient only if the function reads its incoming value.
                lets.push(quote!(let mut #local: #ty = __src.take_output(#active, __c);));
                continue;
            }
            lets.push(quote!(let #local: #ty = __src.take(#active, __c);));
        }
        let ret = match ret {
            Some(ret) => {
                let mut ret = ret.clone();
                if let Some(recv) = receiver {
                    SelfType(&recv.self_ty).visit_type_mut(&mut ret);
                }
                fixed.visit_type_mut(&mut ret);
                match owned(&ret, &scope) {
                    Ok((ty, Pass::Value, true)) => Some(ty),
                    _ => {
                        self.entries[id].no_numerics = Some(format!(
                            "a result of type `{}` the harness cannot make",
                            shown(&ret)
                        ));
                        return None;
                    }
                }
            }
            None => None,
        };
        Some((lets, args, ret, scalars == 1 && others == 0))
    }

    /// `items` between the markers of the harness function of twin `id`: an error there drops its check.
    fn marked(id: usize, items: Vec<syn::Item>) -> Vec<syn::Item> {
        let mut out = vec![marker_item("CHECK", id, false)];
        out.extend(items);
        out.push(marker_item("CHECK", id, true));
        out
    }

    /// Adds twins beside the functions of `items` (a module's, at `path`); `reachable` if the harness can
    /// call functions of this module.
    fn items(
        &mut self,
        items: &mut Vec<syn::Item>,
        path: &[String],
        reachable: bool,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        let mut checks = Vec::new();
        let mut ids = Vec::new();
        for mut item in std::mem::take(items) {
            match &mut item {
                syn::Item::Fn(f) => {
                    let is_test = f.attrs.iter().any(|a| attr_name(a) == "test");
                    f.attrs.retain(|a| {
                        !matches!(attr_name(a).as_str(), "test" | "should_panic" | "ignore")
                    });
                    if is_test {
                        f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
                    }
                    for (id, hoisted) in self.block(&mut f.block, path, reachable) {
                        checks.extend(hoisted);
                        ids.push(id);
                    }
                    let numerics = (!reachable).then_some("in a module the harness cannot reach");
                    let wrt = f
                        .attrs
                        .iter()
                        .find(|a| attr_name(a) == "differentiable")
                        .and_then(wrt_of);
                    let before = self.entries.len();
                    let twin = self.twin(f, path, numerics);
                    if twin.is_none() && numerics.is_none() {
                        if let Some((id, check)) = self.first_order(before, f, wrt.clone(), None) {
                            checks.extend(Self::marked(id, vec![check]));
                            ids.push(id);
                        }
                    }
                    out.push(item);
                    if let Some((id, twin)) = twin {
                        out.push(marker_item("TWIN", id, false));
                        if numerics.is_none() {
                            if let Some(check) = self.check(id, &twin, wrt, None) {
                                self.entries[id].checked = true;
                                checks.extend(Self::marked(id, vec![check]));
                                ids.push(id);
                            }
                        }
                        out.push(syn::Item::Fn(twin));
                        out.push(marker_item("TWIN", id, true));
                    }
                    continue;
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &mut m.content {
                        let mut p = path.to_vec();
                        p.push(m.ident.to_string());
                        let inner_ids = self.items(inner, &p, reachable);
                        // Re-export the dispatchers of the module to its parent.
                        let name = &m.ident;
                        for id in inner_ids {
                            let d = format_ident!("__o2_dispatch_{id}");
                            checks.push(syn::parse_quote!(
                                #[allow(warnings)]
                                pub(crate) use #name::#d;
                            ));
                            ids.push(id);
                        }
                    }
                }
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    let receiver = Receiver::of(i);
                    let mut new = Vec::new();
                    for mut ii in std::mem::take(&mut i.items) {
                        if let syn::ImplItem::Fn(m) = &mut ii {
                            let as_fn = syn::ItemFn {
                                attrs: m.attrs.clone(),
                                vis: m.vis.clone(),
                                sig: m.sig.clone(),
                                block: Box::new(m.block.clone()),
                            };
                            let unreachable = match (&receiver, reachable) {
                                (_, false) => Some("in a module the harness cannot reach"),
                                (Err(_), true) => Some("a method or associated function"),
                                (Ok(_), true) => None,
                            };
                            let wrt = m
                                .attrs
                                .iter()
                                .find(|a| attr_name(a) == "differentiable")
                                .and_then(wrt_of);
                            let before = self.entries.len();
                            let twin = self.twin(&as_fn, path, unreachable);
                            if let (None, Ok(r), None) = (&twin, &receiver, unreachable) {
                                if let Some((id, check)) =
                                    self.first_order(before, &as_fn, wrt.clone(), Some(r))
                                {
                                    checks.extend(Self::marked(id, vec![check]));
                                    ids.push(id);
                                }
                            }
                            new.push(ii);
                            if let Some((id, twin)) = twin {
                                match &receiver {
                                    Err(why) => self.entries[id].no_numerics = Some(why.clone()),
                                    Ok(r) if reachable => {
                                        if let Some(check) = self.check(id, &twin, wrt, Some(r)) {
                                            self.entries[id].checked = true;
                                            checks.extend(Self::marked(id, vec![check]));
                                            ids.push(id);
                                        }
                                    }
                                    Ok(_) => {}
                                }
                                new.push(marker_impl_item("TWIN", id, false));
                                new.push(syn::ImplItem::Fn(syn::ImplItemFn {
                                    attrs: twin.attrs,
                                    vis: twin.vis,
                                    defaultness: None,
                                    sig: twin.sig,
                                    block: *twin.block,
                                }));
                                new.push(marker_impl_item("TWIN", id, true));
                            }
                            continue;
                        }
                        new.push(ii);
                    }
                    i.items = new;
                }
                syn::Item::Struct(_) | syn::Item::Enum(_) => {
                    let impls = self.shapes.impls(&item);
                    out.push(item);
                    out.extend(impls);
                    continue;
                }
                _ => {}
            }
            out.push(item);
        }
        out.extend(checks);
        *items = out;
        ids
    }

    /// Twins of the functions declared in a body. The harness cannot call a function of a body: each twin
    /// is checked through a copy of the body's items (the functions as the user wrote them, its `const`s,
    /// `use`s and types) with the twin and its harness function in a module of its own, `__o2_body_<id>`
    /// (`use super::*`), which is returned to go at the file module's level beside the functions there,
    /// between the harness function's markers: a copy that does not build drops only that check.
    fn block(
        &mut self,
        block: &mut syn::Block,
        path: &[String],
        reachable: bool,
    ) -> Vec<(usize, Vec<syn::Item>)> {
        // The body's items, the attributes of autodiff written by their full path: a `#[custom_gradient]`
        // in the body of a `#[differentiable]` function is the outer macro's to expand, not imported.
        let body_items: Vec<syn::Item> = block
            .stmts
            .iter()
            .filter_map(|s| match s {
                syn::Stmt::Item(i) => {
                    let mut i = i.clone();
                    if let syn::Item::Fn(f) = &mut i {
                        for a in &mut f.attrs {
                            let name = attr_name(a);
                            if a.path().segments.len() == 1
                                && matches!(
                                    name.as_str(),
                                    "differentiable" | "custom_gradient" | "gradient_of"
                                )
                            {
                                let ident = format_ident!("{name}");
                                let full: syn::Path = syn::parse_quote!(::autodiff::#ident);
                                match &mut a.meta {
                                    syn::Meta::Path(p) => *p = full,
                                    syn::Meta::List(l) => l.path = full,
                                    syn::Meta::NameValue(n) => n.path = full,
                                }
                            }
                        }
                    }
                    Some(i)
                }
                _ => None,
            })
            .collect();
        let mut hoisted = Vec::new();
        let mut out = Vec::new();
        for stmt in std::mem::take(&mut block.stmts) {
            let syn::Stmt::Item(syn::Item::Fn(f)) = &stmt else {
                out.push(stmt);
                continue;
            };
            let mut f = f.clone();
            hoisted.extend(self.block(&mut f.block, path, reachable));
            let numerics = (!reachable).then_some("declared inside a function body");
            let wrt = f
                .attrs
                .iter()
                .find(|a| attr_name(a) == "differentiable")
                .and_then(wrt_of);
            let twin = self.twin(&f, path, numerics);
            out.push(syn::Stmt::Item(syn::Item::Fn(f)));
            if let Some((id, twin)) = twin {
                if reachable {
                    if let Some(check) = self.check(id, &twin, wrt, None) {
                        self.entries[id].checked = true;
                        let module = format_ident!("__o2_body_{id}");
                        let dispatch = format_ident!("__o2_dispatch_{id}");
                        let copy = syn::Item::Fn(twin.clone());
                        hoisted.push((
                            id,
                            Self::marked(
                                id,
                                vec![
                                    syn::parse_quote! {
                                        #[allow(warnings, clippy::all)]
                                        mod #module {
                                            use super::*;
                                            #(#body_items)*
                                            #copy
                                            #check
                                        }
                                    },
                                    syn::parse_quote!(#[allow(warnings)] pub(crate) use #module::#dispatch;),
                                ],
                            ),
                        ));
                    }
                }
                out.push(syn::Stmt::Item(marker_item("TWIN", id, false)));
                out.push(syn::Stmt::Item(syn::Item::Fn(twin)));
                out.push(syn::Stmt::Item(marker_item("TWIN", id, true)));
            }
        }
        block.stmts = out;
        hoisted
    }
}

/// One error of a build: where it points (file, line), its grouping key and its rendering.
struct BuildError {
    places: Vec<(String, usize)>,
    key: String,
    rendered: String,
}

fn build(work: &Path) -> Result<Vec<BuildError>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .arg("build")
        .arg("--workspace")
        .arg("--message-format=json")
        .arg("--manifest-path")
        .arg(work.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(work.join("target"))
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_INCREMENTAL")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    let mut errors: Vec<BuildError> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-message" {
            continue;
        }
        let msg = &v["message"];
        let text = msg["message"].as_str().unwrap_or("").to_string();
        let spans = msg["spans"].as_array().cloned().unwrap_or_default();
        // An error found while instantiating a function (a `const` assertion of autodiff-core, which
        // fires only where a twin is called: the harness calls it) points into autodiff-core; the note
        // after it says whose instantiation it was, in the work crate.
        if msg["level"] == "note" && text.contains("encountered while instantiating") {
            if let Some(last) = errors.last_mut() {
                last.places.extend(places_of(work, &spans));
            }
            continue;
        }
        if msg["level"] != "error" || spans.is_empty() {
            continue;
        }
        let places = places_of(work, &spans);
        let key = msg["code"]["code"]
            .as_str()
            .map(|c| format!("{c} {}", blank_names(&text)))
            .unwrap_or_else(|| blank_names(&text));
        errors.push(BuildError {
            places,
            key,
            rendered: msg["rendered"].as_str().unwrap_or(&text).to_string(),
        });
    }
    if !out.status.success() && errors.is_empty() {
        return Err(format!(
            "cargo build failed without errors in the work crate:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(errors)
}

/// Where a message's spans point (file, line): primary spans first, then every span of the macro
/// expansions they come from.
fn places_of(work: &Path, spans: &[serde_json::Value]) -> Vec<(String, usize)> {
    let mut places = Vec::new();
    let mut queue: Vec<serde_json::Value> = spans
        .iter()
        .filter(|s| s["is_primary"] == true)
        .chain(spans.iter().filter(|s| s["is_primary"] != true))
        .cloned()
        .collect();
    while let Some(s) = (!queue.is_empty()).then(|| queue.remove(0)) {
        if let (Some(f), Some(l)) = (s["file_name"].as_str(), s["line_start"].as_u64()) {
            places.push((absolute(work, f), l as usize));
        }
        if s["expansion"].is_object() {
            queue.push(s["expansion"]["span"].clone());
        }
    }
    places
}

fn absolute(work: &Path, file: &str) -> String {
    let p = Path::new(file);
    if p.is_absolute() {
        file.to_string()
    } else {
        work.join(p).display().to_string()
    }
}

/// Runs the harness binary, restarting after a hang or an abort; the outcome of each twin by id.
fn run_checks(exe: &Path) -> Result<BTreeMap<usize, String>, String> {
    let mut results = BTreeMap::new();
    let mut start = 0usize;
    loop {
        let mut child = Command::new(exe)
            .arg(start.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("running {}: {e}", exe.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current: Option<(usize, usize)> = None;
        let mut done = false;
        let mut why = String::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(line) => {
                    let parts: Vec<&str> = line.splitn(4, ' ').collect();
                    match parts.as_slice() {
                        ["BEGIN", k, id] => {
                            current = Some((k.parse().unwrap_or(0), id.parse().unwrap_or(0)))
                        }
                        ["RESULT", _, id, rest] => {
                            results.insert(id.parse().unwrap_or(0), rest.to_string());
                            current = None;
                        }
                        ["DONE"] => done = true,
                        _ => {}
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    why = "hung (no result in 20 s)".into();
                    let _ = child.kill();
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        let _ = reader.join();
        if done {
            return Ok(results);
        }
        match current {
            Some((k, id)) => {
                if why.is_empty() {
                    why = format!("the process died: {status}");
                }
                results.insert(id, format!("panic {why}"));
                start = k + 1;
            }
            None => return Err(format!("the harness stopped without a result: {status}")),
        }
    }
}

/// `text` with what is between backquotes left out: `a parameter of type `..``.
fn blank_quoted(text: &str) -> String {
    let mut out = String::new();
    for (k, part) in text.split('`').enumerate() {
        out.push_str(if k % 2 == 1 { "`..`" } else { part });
    }
    out
}

/// Prints the report; `Ok(true)` when `--strict` should fail.
fn report(
    entries: &[Entry],
    dropped_files: &BTreeMap<String, String>,
    left_out: &[String],
    known_list: &Known,
    opts: &Options,
) -> Result<bool, String> {
    let known = &known_list.reasons;
    for f in left_out {
        println!("left out: {f}");
    }
    for (f, e) in dropped_files {
        println!("file dropped (does not build in the work crate even at first order):\n{f}\n{e}");
    }
    let in_scope: Vec<&Entry> = entries
        .iter()
        .filter(|e| {
            e.out_of_scope.is_none()
                && !dropped_files
                    .keys()
                    .any(|f| e.name.starts_with(&format!("{f}::")))
        })
        .collect();
    let mut by_cause: BTreeMap<String, Vec<&Entry>> = BTreeMap::new();
    let mut failing: BTreeSet<String> = BTreeSet::new();
    let (mut compiled, mut ok, mut wrong, mut panicked, mut noinput, mut unchecked) =
        (0, 0, 0, 0, 0, 0);
    // Of those that match, how many had their `f_jvp` checked against `f_grad` too, and their `f_hvp`,
    // `f_grad_into`, `f_derivatives` against `f_grad` and `f_hessian`.
    let mut forward = 0usize;
    let (mut hvp, mut into, mut derivatives, mut third) = (0usize, 0usize, 0usize, 0usize);
    for e in &in_scope {
        if let Some((key, _)) = &e.compile_error {
            by_cause
                .entry(format!("compile: {key}"))
                .or_default()
                .push(e);
            failing.insert(e.name.clone());
            continue;
        }
        compiled += 1;
        match e.result.as_deref() {
            Some(r) if r.starts_with("ok") => {
                ok += 1;
                forward += usize::from(r.contains("f_jvp too"));
                hvp += usize::from(r.contains("f_hvp too"));
                into += usize::from(r.contains("f_grad_into too"));
                derivatives += usize::from(r.contains("f_derivatives too"));
                third += usize::from(r.contains("the third derivative too"));
            }
            Some(r) if r.starts_with("wrong") => {
                wrong += 1;
                failing.insert(e.name.clone());
                let cause = if r.starts_with("wrong f_grad_into") {
                    "wrong f_grad_into (against f_grad, into buffers of garbage)"
                } else if r.starts_with("wrong f_grad") {
                    "wrong gradient (against central differences of the value)"
                } else if r.starts_with("wrong f_jvp") {
                    "wrong f_jvp (against f_grad along a tangent, or f_vjp with output parameters)"
                } else if r.starts_with("wrong f_hvp") {
                    "wrong f_hvp (against f_hessian times a tangent, f_grad)"
                } else if r.starts_with("wrong f_derivatives") {
                    "wrong f_derivatives (against f_grad and f_hessian)"
                } else {
                    "wrong Hessian"
                };
                by_cause.entry(cause.into()).or_default().push(e);
            }
            Some(r) if r.starts_with("panic") => {
                panicked += 1;
                failing.insert(e.name.clone());
                by_cause
                    .entry("panicked (f_hessian, or f_jvp, f_hvp, f_grad_into, f_derivatives: the message says which)".into())
                    .or_default()
                    .push(e);
            }
            Some(_) => noinput += 1,
            None => unchecked += 1,
        }
    }
    // The functions of several results (a tuple, an array, a `Vec`, output parameters), checked at first
    // order only: `f_vjp` against central differences of the results seen through a fixed cotangent, and
    // `f_jvp`, `f_jacobian` against `f_vjp` (`vjp_check`).
    let several: Vec<&Entry> = entries
        .iter()
        .filter(|e| {
            e.out_of_scope.is_some()
                && e.checked
                && !dropped_files
                    .keys()
                    .any(|f| e.name.starts_with(&format!("{f}::")))
        })
        .collect();
    let (mut several_ok, mut several_wrong, mut several_other) = (0, 0, 0);
    let (mut jacobians, mut several_forward) = (0, 0);
    for e in &several {
        match e.result.as_deref() {
            Some(r) if r.starts_with("ok") => {
                several_ok += 1;
                jacobians += usize::from(r.contains("f_jacobian too"));
                several_forward += usize::from(r.contains("f_jvp too"));
            }
            Some(r) if r.starts_with("wrong") || r.starts_with("panic") => {
                several_wrong += 1;
                failing.insert(e.name.clone());
                let cause = if r.starts_with("wrong f_jacobian") || r.starts_with("panic Jacobian")
                {
                    "wrong f_jacobian of a function of several results (against f_vjp through a cotangent)"
                } else if r.starts_with("wrong f_jvp") || r.starts_with("panic f_jvp") {
                    "wrong f_jvp of a function of several results (against f_vjp, both through a tangent and a cotangent)"
                } else {
                    "wrong f_vjp of a function of several results (first order)"
                };
                by_cause.entry(cause.into()).or_default().push(e);
            }
            other => {
                several_other += 1;
                if !opts.quiet {
                    let why = match (&e.no_numerics, &e.harness_error, other) {
                        (Some(why), _, _) => why.clone(),
                        (_, Some(h), _) => format!(
                            "the harness could not call it: {}",
                            h.lines().next().unwrap_or("")
                        ),
                        (_, _, Some(r)) => r.to_string(),
                        _ => "no result (never run)".to_string(),
                    };
                    println!("  not checked at first order: {}: {why}", e.name);
                }
            }
        }
    }
    for (cause, list) in &by_cause {
        println!("== {cause}: {}", list.len());
        for e in list {
            let detail = match (&e.compile_error, &e.result) {
                (Some((_, r)), _) => r.lines().take(12).collect::<Vec<_>>().join("\n    "),
                (_, Some(r)) => r.clone(),
                _ => String::new(),
            };
            let mark = if known.contains_key(&e.name) {
                " (known)"
            } else {
                ""
            };
            let kind = match e.kind {
                Kind::Differentiable => "",
                Kind::Custom => " [custom_gradient, through a caller]",
                Kind::Registered => " [gradient_of, through a caller]",
            };
            println!("  {}{kind}{mark}\n    {detail}", e.name);
        }
    }
    // A file that does not build even at first order hides all its functions: under `--strict` that is a
    // failure too, or a whole file could drop out of the check unnoticed.
    let mut unexpected: Vec<String> = (dropped_files.keys())
        .map(|f| format!("file dropped, its functions not checked: {f}"))
        .collect();
    for name in &failing {
        if !known.contains_key(name) {
            unexpected.push(format!("not in known.txt: {name}"));
        }
    }
    for name in known.keys() {
        if opts.only.is_none() && opts.skip.is_none() && !entries.iter().any(|e| &e.name == name) {
            unexpected.push(format!(
                "not a function of the suites with derivatives (remove it from known.txt): {name}"
            ));
        }
        if !failing.contains(name) && in_scope.iter().chain(&several).any(|e| &e.name == name) {
            unexpected.push(format!(
                "known to fail but passes (remove it from known.txt): {name}"
            ));
        }
    }
    // Why each function that compiled at order 2 has no Hessian checked: the list, and a count per reason
    // (the text in backquotes left out), which the last lines always print.
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    if !opts.quiet {
        println!("== not checked numerically (compiled at order 2):");
    }
    for e in &in_scope {
        if e.compile_error.is_some() {
            continue;
        }
        let why = match (&e.no_numerics, &e.harness_error, e.result.as_deref()) {
            (Some(why), _, _) => why.clone(),
            (_, Some(h), _) => format!(
                "the harness could not call it: {}",
                h.lines().next().unwrap_or("")
            ),
            (_, _, Some(r)) if r.starts_with("noinput") => r.to_string(),
            (_, _, Some(_)) => continue,
            (None, None, None) => "no result (never run)".to_string(),
        };
        if !opts.quiet {
            println!("  {}: {why}", e.name);
        }
        let kind = if why.starts_with("noinput") {
            "no inputs found".to_string()
        } else {
            blank_quoted(&why)
        };
        *reasons.entry(kind).or_default() += 1;
    }
    for (why, n) in &reasons {
        println!("order2: not checked: {n} × {why}");
    }
    for u in &unexpected {
        println!("{u}");
    }
    let out_of_scope = entries.iter().filter(|e| e.out_of_scope.is_some()).count();
    println!(
        "order2: {} functions with derivatives ({} with one float result); at order 2: {} failed to compile \
         ({} of them known and not built), {} compiled; of those {} match (the gradient central differences of the value, the Hessian those of the gradient), {} wrong, {} panicked, \
         {} without inputs found, {} not checked numerically",
        entries.len(),
        in_scope.len(),
        in_scope.len() - compiled,
        in_scope
            .iter()
            .filter(|e| e.compile_error.as_ref().is_some_and(|(k, _)| k == NOT_BUILT))
            .count(),
        compiled,
        ok,
        wrong,
        panicked,
        noinput,
        unchecked,
    );
    let _ = out_of_scope;
    println!(
        "order2: forward mode: {forward} of the {ok} that match also have f_jvp along a tangent equal to f_grad's \
         inner product with it (with output parameters, their tangents too, through a cotangent, against f_vjp; \
         the others take an integer `&mut` buffer or a type the harness makes no tangent of)"
    );
    println!(
        "order2: other items of the {ok} that match: {hvp} with f_hvp along a tangent equal to f_hessian times it, \
         {into} with f_grad_into writing f_grad's floats bit for bit into buffers of garbage, {derivatives} \
         with f_derivatives equal to f, f_grad and f_hessian (those of one scalar input)"
    );
    if opts.order > 2 {
        println!(
            "order2: at order {}: {third} with f_derivatives' third derivative equal to central differences \
             of its second",
            opts.order
        );
    }
    println!(
        "order2: first order, functions of several results (a tuple, array or Vec, or output parameters): {} \
         checked, {} f_vjp match central differences of the results through a cotangent (of those {} with \
         f_jvp along a tangent agreeing with f_vjp, {} with f_jacobian through the cotangent equal to f_vjp), \
         {} wrong or panicked, {} without inputs found or not callable",
        several.len(),
        several_ok,
        several_forward,
        jacobians,
        several_wrong,
        several_other,
    );
    Ok(opts.strict && !unexpected.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(ty: &str, shapes: &Shapes) -> Result<(String, bool), String> {
        let scope = Scope {
            floats: vec!["T".into()],
            params: vec!["T".into(), "U".into()],
            shapes,
        };
        let ty: syn::Type = syn::parse_str(ty).unwrap();
        owned(&ty, &scope).map(|(t, _, f)| (shown(&t), f))
    }

    #[test]
    fn struct_and_tuple_parameters_are_made_owned() {
        let file: syn::File = syn::parse_str(
            "#[derive(Differentiable)] struct Quad<T: Float> { a: T }
             struct Data { xs: Vec<f64> }
             enum Mode { A, B }",
        )
        .unwrap();
        let shapes = Shapes::collect(&file);
        assert_eq!(made("&Quad<T>", &shapes), Ok(("Quad<f64>".into(), true)));
        // Data the function reads: made, never perturbed.
        assert_eq!(made("&Data", &shapes), Ok(("Data".into(), false)));
        assert_eq!(made("Mode", &shapes), Ok(("Mode".into(), false)));
        assert_eq!(
            made("(&[T], f64)", &shapes),
            Ok(("(:: std :: vec :: Vec<f64>, f64,)".into(), true))
        );
        assert_eq!(
            made("&str", &shapes),
            Ok((":: std :: string :: String".into(), false))
        );
        assert!(made("U", &shapes).unwrap_err().contains("not a float"));
        assert!(made("&Other", &shapes).unwrap_err().contains("not defined"));
    }

    #[test]
    fn a_tuple_of_references_borrows_its_elements() {
        let ty: syn::Type = syn::parse_str("(&[f64], f64, &f32)").unwrap();
        assert_eq!(
            argument(&ty, quote!(__p0)).to_string(),
            quote!((&__p0.0[..], __p0.1, &__p0.2,)).to_string()
        );
        let plain: syn::Type = syn::parse_str("(f64, [f64; 2])").unwrap();
        assert_eq!(argument(&plain, quote!(__p1)).to_string(), "__p1");
    }

    #[test]
    fn const_and_non_float_type_parameters_are_fixed() {
        let mut ty: syn::Type = syn::parse_str("([f64; N], U)").unwrap();
        Fixed {
            consts: vec!["N".into()],
            types: vec!["U".into()],
        }
        .visit_type_mut(&mut ty);
        assert_eq!(shown(&ty), "([f64 ; 3], usize)");
    }

    #[test]
    fn outputs_are_mutable_floats_slices_vecs_and_arrays() {
        let names = |src: &str| {
            let f: syn::ItemFn = syn::parse_str(src).unwrap();
            output_locals(&f, &["T".to_string()])
                .map(|outs| outs.iter().map(ToString::to_string).collect::<Vec<_>>())
        };
        assert_eq!(
            names("fn f(x: &[f64], a: &mut [T], n: usize, b: &mut f32, c: &mut Vec<f64>, d: &mut [f64; 3]) {}"),
            Some(vec!["__p1".into(), "__p3".into(), "__p4".into(), "__p5".into()])
        );
        assert_eq!(names("fn f(x: &[f64], y: f64) -> f64 {}"), Some(vec![]));
        // An integer buffer (never differentiated) or `&mut self`: no forward or several-results check.
        assert_eq!(
            names("fn f(a: &[f64], cursor: &mut [usize]) -> f64 {}"),
            None
        );
        assert_eq!(names("fn f(&mut self, x: f64, out: &mut [f64]) {}"), None);
    }

    #[test]
    fn one_float_scalar_is_a_float_or_a_shared_reference_to_one() {
        let floats = ["T".to_string()];
        for (ty, scalar) in [
            ("f64", true),
            ("&f32", true),
            ("T", true),
            ("&mut f64", false),
            ("[f64; 1]", false),
            ("(f64,)", false),
            ("usize", false),
        ] {
            let ty: syn::Type = syn::parse_str(ty).unwrap();
            assert_eq!(scalar_type(&ty, &floats), scalar, "{}", shown(&ty));
        }
    }
}
