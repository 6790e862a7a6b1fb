//! Writes the generated crate: one module per program with the `#[differentiable]` copy and its `check`
//! function, one module with the plain and oracle copies, a shared `support` module and a `main` that runs every
//! check under `catch_unwind` and prints one line per program.
//!
//! The check compares, at a few random points, the primal, `_grad`, `_vjp` (random cotangent), `_jvp` (random
//! tangent) and, with `order = 2`, `_hvp` with the Jacobian (and Hessian-vector products) that the oracle copy
//! computes on `autodiff::Dual<f64>` (`Dual<Dual<f64>>`), one run per active input.

use crate::ast::*;
use crate::print::{print_program, Mode};
use std::fmt::Write;

/// The support module of the generated crate: a PRNG for input points and the comparisons.
pub const SUPPORT: &str = r#"//! Run-time support of the generated checks.
pub use autodiff::{Dual, Float};

/// SplitMix64 for input points.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A value in [-1.5, 1.5].
    pub fn f(&mut self) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (u * 3.0 - 1.5) * 0.999 + 0.0005
    }
    pub fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.f()).collect()
    }
}

/// A first-order dual input.
pub fn d1(re: f64, eps: f64) -> Dual<f64> {
    Dual::new(re, eps)
}

/// A second-order dual input: inner tangent `v` (the Hessian-vector direction), outer tangent `e`.
pub fn d2(re: f64, v: f64, e: f64) -> Dual<Dual<f64>> {
    Dual::new(Dual::new(re, v), Dual::new(e, 0.0))
}

thread_local! {
    /// Set by [`watch`] when the oracle computes a non-finite value.
    static NON_FINITE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The largest second-order part of a value the oracle computed since [`hvp`] reset it.
    static SECOND_ORDER_SCALE: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
    /// The points of the current program skipped for non-finite intermediate values.
    static SKIPPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Every value the oracle computes passes through here: a non-finite one is noted, and so is the size of
/// a second-order dual's second-order part (the scale of [`hvp`]'s rounding).
pub fn watch<T: Float>(value: T) -> T {
    if !value.is_finite() {
        NON_FINITE.with(|f| f.set(true));
    }
    if std::any::type_name::<T>() == std::any::type_name::<Dual<Dual<f64>>>()
        && std::mem::size_of::<T>() == std::mem::size_of::<Dual<Dual<f64>>>()
    {
        // SAFETY: `T` is `Dual<Dual<f64>>` (same name, same size); the oracle's generic functions have
        // no `'static` bound for `Any`.
        let d: Dual<Dual<f64>> = unsafe { std::mem::transmute_copy(&value) };
        let m = d.eps.eps.abs().max((d.re.eps * d.eps.re).abs());
        SECOND_ORDER_SCALE.with(|s| s.set(s.get().max(m)));
    }
    value
}

/// Whether the oracle computed a non-finite value since the last call; if so, the point is counted as
/// skipped. Reverse mode gives NaN there where a zero adjoint meets an infinite partial (an overflowed
/// element nothing reads), as JAX does, while forward mode and the oracle stay finite.
pub fn skip_non_finite() -> bool {
    let seen = NON_FINITE.with(|f| f.replace(false));
    if seen {
        SKIPPED.with(|s| s.set(s.get() + 1));
    }
    seen
}

/// Forgets a non-finite value noted before the oracle's run at a new point.
pub fn reset_non_finite() {
    NON_FINITE.with(|f| f.set(false));
}

/// The points skipped since the last call.
pub fn take_skipped() -> usize {
    SKIPPED.with(|s| s.replace(0))
}

pub fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// The oracle's values and Jacobian (rows are outputs), one dual run per active input.
pub fn jacobian(nin: usize, nout: usize, f: impl Fn(&[f64]) -> Vec<Dual<f64>>) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut jac = vec![vec![0.0; nin]; nout];
    let mut vals = vec![0.0; nout];
    for k in 0..nin {
        let mut dir = vec![0.0; nin];
        dir[k] = 1.0;
        let out = f(&dir);
        for o in 0..nout {
            vals[o] = out[o].re;
            jac[o][k] = out[o].eps;
        }
    }
    (vals, jac)
}

/// The oracle's Hessian-vector product, `e_k^T H v` for every active input `k`, with the scale of its
/// rounding error there: the largest second-order part of any value the oracle computed on the way
/// ([`watch`] notes them).
pub fn hvp(nin: usize, v: &[f64], f: impl Fn(&[f64]) -> Dual<Dual<f64>>) -> (Vec<f64>, Vec<f64>) {
    (0..nin)
        .map(|k| {
            let mut dir = vec![0.0; nin];
            dir[k] = 1.0;
            SECOND_ORDER_SCALE.with(|s| s.set(0.0));
            let value = f(&dir).eps.eps;
            (value, SECOND_ORDER_SCALE.with(|s| s.get()))
        })
        .unzip()
}

/// Compares `got` with `want` entry by entry: relative tolerance 1e-8 with an absolute floor scaled to the
/// largest entry (reverse and forward mode sum the same terms in different orders).
pub fn compare(what: &str, got: &[f64], want: &[f64], point: &str) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} instead of {} at {point}", got.len(), want.len()));
    }
    let scale = want.iter().chain(got).filter(|x| x.is_finite()).fold(1.0f64, |m, x| m.max(x.abs()));
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= 1e-8 * g.abs().max(w.abs()) + 1e-10 * scale;
        if !ok {
            return Err(format!("{what}: entry {k} is {g:e}, the dual oracle gives {w:e} at {point}"));
        }
    }
    Ok(())
}

/// [`compare`] for a Hessian-vector product, widened entry by entry by the oracle's own rounding: dual
/// over dual numbers sum every intermediate second derivative forwards, so a program that adds and later
/// subtracts a value with a large second derivative (`.. - t + .. + t`) loses its digits there, which the
/// reverse sweep never forms (its adjoint of `t` is `-1 + 1 = 0`). autodiff-fuzz --seed 2718 --forms,
/// p43: a second derivative of 4e7 cancelled in the sum, the oracle 3e-9 away from `f_hvp`, central
/// differences of the oracle's own gradient agreeing with `f_hvp`. The slack is 64 ulps of the largest
/// such intermediate (`scales`, from [`hvp`]).
pub fn compare_hvp(
    what: &str,
    got: &[f64],
    want: &[f64],
    scales: &[f64],
    point: &str,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} instead of {} at {point}", got.len(), want.len()));
    }
    let scale = want.iter().chain(got).filter(|x| x.is_finite()).fold(1.0f64, |m, x| m.max(x.abs()));
    for (k, ((&g, &w), &s)) in got.iter().zip(want).zip(scales).enumerate() {
        let rounding = 64.0 * f64::EPSILON * s;
        let ok = (g - w).abs() <= 1e-8 * g.abs().max(w.abs()) + 1e-10 * scale + rounding;
        if !ok {
            return Err(format!(
                "{what}: entry {k} is {g:e}, the dual oracle gives {w:e} (its rounding up to {rounding:e}) at {point}"
            ));
        }
    }
    Ok(())
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Calls the oracle, reporting its panic as a generator bug (the plain program must not panic).
pub fn oracle<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("generator: the oracle copy panicked: {msg}")
    })
}
"#;

/// The `main.rs` of the generated crate, running the checks of `modules` (names of kept program modules, with
/// the program number that seeds the input points, so that a shrunk copy is checked at the same points).
pub fn main_rs(modules: &[(String, usize)], oracles: &[String]) -> String {
    let mut s =
        String::from("#![allow(warnings)]\n//! Generated by autodiff-fuzz.\nmod support;\n");
    for m in oracles {
        let _ = writeln!(s, "mod {m}_oracle;");
    }
    for (m, _) in modules {
        let _ = writeln!(s, "mod {m};");
    }
    s.push_str(
        r#"
type Check = fn(&mut support::Rng) -> Result<Vec<f64>, String>;


fn main() {
    let args: Vec<String> = std::env::args().collect();
    let start: usize = args.get(1).map_or(0, |a| a.parse().unwrap());
    let seed: u64 = args.get(2).map_or(0, |a| a.parse().unwrap());
    std::panic::set_hook(Box::new(|_| {}));
    let checks: &[(&str, u64, Check)] = &[
"#,
    );
    for (m, id) in modules {
        let _ = writeln!(s, "        (\"{m}\", {id}, {m}::check),");
    }
    s.push_str(
        r#"    ];
    use std::io::Write;
    let mut out = std::io::stdout();
    for (k, (name, id, check)) in checks.iter().enumerate().skip(start) {
        let _ = writeln!(out, "BEGIN {k} {name}");
        let _ = out.flush();
        let mut rng = support::Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ id);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&mut rng)));
        let skipped = support::take_skipped();
        if skipped > 0 {
            let _ = writeln!(out, "SKIP {name} {skipped}");
        }
        let line = match outcome {
            Ok(Ok(grads)) => {
                let g: Vec<String> = grads.iter().map(|x| format!("{x:?}")).collect();
                format!("GRAD {name} {}\nOK {name}", g.join(" "))
            }
            Ok(Err(msg)) => format!("WRONG {name} {}", msg.replace('\n', " ")),
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                format!("PANIC {name} {}", msg.replace('\n', " "))
            }
        };
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    let _ = writeln!(out, "DONE");
}
"#,
    );
    s
}

/// The module holding the plain copy and the oracle copy of `program`.
pub fn oracle_module(program: &Program) -> String {
    if let Some(sp) = &program.structs {
        return crate::gen::structs::oracle_module(sp);
    }
    format!(
        "//! The plain and the oracle copies (no macro).\nuse autodiff::Float;\n\n{}\n{}",
        print_program(program, Mode::Plain),
        print_program(program, Mode::Oracle)
    )
}

/// The module of the `#[differentiable]` copy of `program` and its `check` function; `module` is its name.
pub fn program_module(program: &Program, module: &str) -> String {
    if let Some(sp) = &program.structs {
        return crate::gen::structs::program_module(sp, program.id, module);
    }
    let mut s = format!(
        "//! Program {} of the run.\nuse autodiff::{{custom_gradient, differentiable, Float}};\nuse crate::support::*;\n\n",
        program.id
    );
    s.push_str(&print_program(program, Mode::Macro));
    s.push_str(&check_fn(program.main(), module));
    s
}

/// Where each active parameter starts in the flattened inputs, and the total length.
fn offsets(f: &Func) -> (Vec<Option<usize>>, usize) {
    let active: Vec<String> = f.active_params().iter().map(|p| p.name.clone()).collect();
    let mut off = 0;
    let mut out = Vec::new();
    for p in &f.params {
        if active.contains(&p.name) {
            out.push(Some(off));
            off += match p.kind {
                ParamKind::Slice(l) => l,
                ParamKind::Matrix(r, c, _) => r * c,
                _ => 1,
            };
        } else {
            out.push(None);
        }
    }
    (out, off)
}

/// The pattern binding a gradient-shaped value (`g0` or `(g0, g1)`) and the code flattening it into `into`.
fn grad_pattern(f: &Func, prefix: &str, into: &str) -> (String, String) {
    let active = f.active_params();
    let names: Vec<String> = (0..active.len()).map(|k| format!("{prefix}{k}")).collect();
    let pat = if names.len() == 1 {
        names[0].clone()
    } else {
        format!("({})", names.join(", "))
    };
    let mut flat = format!("let mut {into}: Vec<f64> = Vec::new();\n");
    for (p, n) in active.iter().zip(&names) {
        match p.kind {
            ParamKind::Slice(_) => {
                let _ = writeln!(flat, "        {into}.extend_from_slice(&{n});");
            }
            ParamKind::Matrix(..) => {
                let _ = writeln!(
                    flat,
                    "        for row in &{n} {{ {into}.extend_from_slice(row); }}"
                );
            }
            _ => {
                let _ = writeln!(flat, "        {into}.push({n});");
            }
        }
    }
    (pat, flat)
}

fn check_fn(f: &Func, module: &str) -> String {
    let (offs, nin) = offsets(f);
    let nout = f.tail.len();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n/// Checks every generated item of `{}` against the dual oracle.",
        f.name
    );
    s.push_str("pub fn check(rng: &mut Rng) -> Result<Vec<f64>, String> {\n    let mut grads = Vec::new();\n");
    s.push_str("    for point in 0..3 {\n");
    // Inputs.
    let mut call_args = Vec::new();
    let mut show = Vec::new();
    for p in &f.params {
        let n = &p.name;
        match p.kind {
            ParamKind::Scalar => {
                let _ = writeln!(s, "        let {n}: f64 = rng.f();");
                call_args.push(match f.param_style(n) {
                    Some(ParamStyle::Scalar) => format!("&{n}"),
                    _ => n.clone(),
                });
                show.push(format!("{n} = {{{n}:?}}"));
            }
            ParamKind::Slice(l) => {
                let _ = writeln!(s, "        let {n}: Vec<f64> = rng.vec({l});");
                if f.param_style(n) == Some(ParamStyle::Array) {
                    let _ = writeln!(
                        s,
                        "        let {n}_a: [f64; {l}] = core::array::from_fn(|j| {n}[j]);"
                    );
                    call_args.push(format!("&{n}_a"));
                } else {
                    call_args.push(format!("&{n}"));
                }
                show.push(format!("{n} = {{{n}:?}}"));
            }
            ParamKind::Int(v) => {
                let _ = writeln!(s, "        let {n}: usize = {v};");
                call_args.push(n.clone());
            }
            ParamKind::Matrix(r, c, style) => {
                let _ = writeln!(
                    s,
                    "        let {n}: Vec<Vec<f64>> = (0..{r}).map(|_| rng.vec({c})).collect();"
                );
                if style.nested() {
                    let _ = writeln!(
                        s,
                        "        let {n}_a: [[f64; {c}]; {r}] = core::array::from_fn(|i| core::array::from_fn(|j| {n}[i][j]));"
                    );
                }
                call_args.push(match style {
                    MatStyle::Slice => format!("&{n}"),
                    MatStyle::Vec => format!("{n}.clone()"),
                    MatStyle::Nested => format!("{n}_a"),
                    MatStyle::NestedRef => format!("&{n}_a"),
                });
                show.push(format!("{n} = {{{n}:?}}"));
            }
            // Only helpers take output buffers; the checked function never does.
            ParamKind::Out(_) | ParamKind::OutFloat | ParamKind::Pair(_) => {}
        }
    }
    let args = call_args.join(", ");
    let _ = writeln!(
        s,
        "        let at = format!(\"point {{point}}: {}\");",
        show.join(", ")
    );
    // Dual inputs built from a direction (and, at second order, a Hessian-vector direction).
    let dual_args = |second: bool| -> (String, String) {
        let mut lets = String::new();
        let mut dargs = Vec::new();
        for (p, off) in f.params.iter().zip(&offs) {
            let n = &p.name;
            let mk = |re: &str, j: Option<String>| match (second, j) {
                (false, Some(j)) => format!("d1({re}, dir[{j}])"),
                (false, None) => format!("d1({re}, 0.0)"),
                (true, Some(j)) => format!("d2({re}, hv_dir[{j}], dir[{j}])"),
                (true, None) => format!("d2({re}, 0.0, 0.0)"),
            };
            match p.kind {
                ParamKind::Scalar => {
                    let _ = writeln!(
                        lets,
                        "            let {n}_d = {};",
                        mk(n, off.map(|o| o.to_string()))
                    );
                    dargs.push(match f.param_style(n) {
                        Some(ParamStyle::Scalar) => format!("&{n}_d"),
                        _ => format!("{n}_d"),
                    });
                }
                ParamKind::Slice(l) => {
                    let e = mk(&format!("{n}[j]"), off.map(|o| format!("{o} + j")));
                    if f.param_style(n) == Some(ParamStyle::Array) {
                        let _ = writeln!(
                            lets,
                            "            let {n}_d: [_; {l}] = core::array::from_fn(|j| {e});"
                        );
                    } else {
                        let _ = writeln!(
                            lets,
                            "            let {n}_d: Vec<_> = (0..{l}).map(|j| {e}).collect();"
                        );
                    }
                    dargs.push(format!("&{n}_d"));
                }
                ParamKind::Int(_) => dargs.push(n.clone()),
                ParamKind::Matrix(r, c, style) => {
                    let e = mk(
                        &format!("{n}[mi][mj]"),
                        off.map(|o| format!("{o} + mi * {c} + mj")),
                    );
                    if style.nested() {
                        let _ = writeln!(
                            lets,
                            "            let {n}_d: [[_; {c}]; {r}] = core::array::from_fn(|mi| core::array::from_fn(|mj| {e}));"
                        );
                    } else {
                        let _ = writeln!(
                            lets,
                            "            let {n}_d: Vec<Vec<_>> = (0..{r}).map(|mi| (0..{c}).map(|mj| {e}).collect()).collect();"
                        );
                    }
                    dargs.push(match style {
                        MatStyle::Slice | MatStyle::NestedRef => format!("&{n}_d"),
                        MatStyle::Vec | MatStyle::Nested => format!("{n}_d"),
                    });
                }
                ParamKind::Out(_) | ParamKind::OutFloat | ParamKind::Pair(_) => {}
            }
        }
        (lets, dargs.join(", "))
    };
    let oracle = format!("crate::{module}_oracle::{}_oracle", f.name);
    let (lets, dargs) = dual_args(false);
    let outs = if nout == 1 {
        "vec![r]".to_string()
    } else {
        let (a, b) = if f.result_array {
            ("[0]", "[1]")
        } else {
            (".0", ".1")
        };
        format!("vec![r{a}, r{b}]")
    };
    let _ = write!(
        s,
        "        reset_non_finite();\n        let (vals, jac) = oracle(|| jacobian({nin}, {nout}, |dir: &[f64]| {{\n{lets}            let r = {oracle}({dargs});\n            {outs}\n        }}))?;\n"
    );
    s.push_str("        if skip_non_finite() {\n            continue;\n        }\n");
    s.push_str("        if !finite(&vals) || jac.iter().any(|row| !finite(row)) {\n            continue;\n        }\n");
    let got = match (nout, f.result_array) {
        (1, _) => "vec![v]",
        (_, true) => "vec![v[0], v[1]]",
        (_, false) => "vec![v.0, v.1]",
    };
    let name = &f.name;
    // The primal.
    let _ = writeln!(s, "        let v = {name}({args});\n        compare(\"value of {name}\", &{got}, &vals, &at)?;");
    // _grad
    let (gpat, gflat) = grad_pattern(f, "g", "flat");
    if nout == 1 {
        let _ = write!(
            s,
            "        let (v, {gpat}) = {name}_grad({args});\n        {gflat}        compare(\"value of {name}_grad\", &[v], &vals, &at)?;\n        compare(\"{name}_grad\", &flat, &jac[0], &at)?;\n        grads.extend_from_slice(&flat);\n"
        );
        // _grad_into, where every active parameter is a scalar or a slice: into buffers filled with NaN,
        // which it must overwrite (a loop fused into the forward sweep writes them there).
        let active = f.active_params();
        if active
            .iter()
            .all(|p| matches!(p.kind, ParamKind::Scalar | ParamKind::Slice(_)))
        {
            let mut decls = String::new();
            let mut bufs = Vec::new();
            let mut flat = String::from("let mut flat_into: Vec<f64> = Vec::new();\n");
            for (k, p) in active.iter().enumerate() {
                let n = format!("gi{k}");
                match p.kind {
                    ParamKind::Slice(len) if f.param_style(&p.name) == Some(ParamStyle::Array) => {
                        let _ = writeln!(decls, "        let mut {n} = [f64::NAN; {len}];");
                        let _ = writeln!(flat, "        flat_into.extend_from_slice(&{n});");
                    }
                    ParamKind::Slice(len) => {
                        let _ = writeln!(decls, "        let mut {n} = vec![f64::NAN; {len}];");
                        let _ = writeln!(flat, "        flat_into.extend_from_slice(&{n});");
                    }
                    _ => {
                        let _ = writeln!(decls, "        let mut {n} = f64::NAN;");
                        let _ = writeln!(flat, "        flat_into.push({n});");
                    }
                }
                bufs.push(format!("&mut {n}"));
            }
            let buf = if bufs.len() == 1 {
                bufs[0].clone()
            } else {
                format!("({})", bufs.join(", "))
            };
            let _ = write!(
                s,
                "{decls}        let v = {name}_grad_into({args}, {buf});\n        {flat}        compare(\"value of {name}_grad_into\", &[v], &vals, &at)?;\n        compare(\"{name}_grad_into\", &flat_into, &jac[0], &at)?;\n"
            );
        }
    }
    // _vjp
    let (dr_expr, dr_vec) = if nout == 1 {
        ("rng.f()".to_string(), "vec![dr]".to_string())
    } else {
        let (pair, a, b) = match f.result_array {
            true => (("[", "]"), "[0]", "[1]"),
            false => (("(", ")"), ".0", ".1"),
        };
        (
            format!("{}rng.f(), rng.f(){}", pair.0, pair.1),
            format!("vec![dr{a}, dr{b}]"),
        )
    };
    let _ = write!(
        s,
        "        let dr = {dr_expr};\n        let drv: Vec<f64> = {dr_vec};\n        let (v, {gpat}) = {name}_vjp({args}, dr);\n        {gflat}        compare(\"value of {name}_vjp\", &{got}, &vals, &at)?;\n        let want: Vec<f64> = (0..{nin}).map(|k| (0..{nout}).map(|o| drv[o] * jac[o][k]).sum()).collect();\n        compare(\"{name}_vjp\", &flat, &want, &format!(\"{{at}}, d_ret = {{dr:?}}\"))?;\n"
    );
    if nout != 1 {
        s.push_str("        grads.extend_from_slice(&flat);\n");
    }
    // _jacobian, of an array result: rows the outputs, columns the active inputs flattened.
    if f.result_array {
        let _ = write!(
            s,
            "        let jm = {name}_jacobian({args});\n        if jm.len() != {nout} {{\n            return Err(format!(\"{name}_jacobian has {{}} rows, not {nout} ({{at}})\", jm.len()));\n        }}\n        for o in 0..{nout} {{\n            compare(\"{name}_jacobian\", &jm[o], &jac[o], &at)?;\n        }}\n"
        );
    }
    // _jvp: a random tangent shaped like the gradient.
    let active = f.active_params();
    let mut tnames = Vec::new();
    for (k, p) in active.iter().enumerate() {
        match p.kind {
            ParamKind::Slice(l) if f.param_style(&p.name) == Some(ParamStyle::Array) => {
                let _ = writeln!(
                    s,
                    "        let tg{k}: [f64; {l}] = core::array::from_fn(|_| rng.f());"
                );
                tnames.push(format!("tg{k}"));
            }
            ParamKind::Slice(l) => {
                let _ = writeln!(s, "        let tg{k}: Vec<f64> = rng.vec({l});");
                tnames.push(format!("tg{k}.clone()"));
            }
            ParamKind::Matrix(r, c, style) => {
                if style.nested() {
                    let _ = writeln!(
                        s,
                        "        let tg{k}: [[f64; {c}]; {r}] = core::array::from_fn(|_| core::array::from_fn(|_| rng.f()));"
                    );
                } else {
                    let _ = writeln!(
                        s,
                        "        let tg{k}: Vec<Vec<f64>> = (0..{r}).map(|_| rng.vec({c})).collect();"
                    );
                }
                tnames.push(format!("tg{k}.clone()"));
            }
            _ => {
                let _ = writeln!(s, "        let tg{k}: f64 = rng.f();");
                tnames.push(format!("tg{k}"));
            }
        }
    }
    let tangent = if tnames.len() == 1 {
        tnames[0].clone()
    } else {
        format!("({})", tnames.join(", "))
    };
    let (_, tflat) = grad_pattern(f, "tg", "tflat");
    let tgot = match (nout, f.result_array) {
        (1, _) => "vec![tv]",
        (_, true) => "vec![tv[0], tv[1]]",
        (_, false) => "vec![tv.0, tv.1]",
    };
    let _ = write!(
        s,
        "        {tflat}        let (v, tv) = {name}_jvp({args}, {tangent});\n        compare(\"value of {name}_jvp\", &{got}, &vals, &at)?;\n        let want: Vec<f64> = (0..{nout}).map(|o| dot(&jac[o], &tflat)).collect();\n        compare(\"{name}_jvp\", &{tgot}, &want, &format!(\"{{at}}, tangent = {{tflat:?}}\"))?;\n"
    );
    // _hvp
    if f.order2() {
        let (lets2, dargs2) = dual_args(true);
        let (hpat, hflat) = grad_pattern(f, "hv", "hflat");
        let _ = write!(
            s,
            "        let hv_dir = tflat.clone();\n        let (want, scales) = oracle(|| hvp({nin}, &hv_dir, |dir: &[f64]| {{\n{lets2}            {oracle}({dargs2})\n        }}))?;\n        let (v, {gpat}, {hpat}) = {name}_hvp({args}, {tangent});\n        {gflat}        {hflat}        compare(\"value of {name}_hvp\", &[v], &vals, &at)?;\n        compare(\"gradient of {name}_hvp\", &flat, &jac[0], &at)?;\n        if finite(&want) {{\n            compare_hvp(\"{name}_hvp\", &hflat, &want, &scales, &format!(\"{{at}}, v = {{tflat:?}}\"))?;\n        }}\n"
        );
    }
    s.push_str("    }\n    Ok(grads)\n}\n");
    s
}
