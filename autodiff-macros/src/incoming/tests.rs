//! The analysis on bodies written as strings, output `y`: each case says whether the incoming value is read.

use super::*;

fn reads_in(body: &str, len: Option<u64>) -> bool {
    let block: syn::Block = syn::parse_str(&format!("{{ {body} }}")).unwrap();
    reads_incoming(&block, &syn::parse_str("y").unwrap(), len)
}

fn reads(body: &str) -> bool {
    reads_in(body, None)
}

#[test]
fn an_output_written_whole_by_a_loop_before_any_read_is_not_read() {
    // Written whole, then read (also inside a branch after it, and passed on).
    for body in [
        "for i in 0..y.len() { y[i] = 0.0; } for i in 1..y.len() { y[i] = y[i - 1]; }",
        "for i in 0..y.len() { let v = x[i]; y[i] = v * v; } if c { g(y); }",
        "for i in 0..y.len() { y[i] = x; if i > 2 { continue; } } s = y[0];",
        "for i in 0..y.len() { y[i] = x; return; } s = y[0];",
        "y[0] = 1.0; for i in 1..y.len() { y[i] = y[i - 1] * x; } s = y.iter().sum();",
    ] {
        assert!(!reads(body), "{body}");
    }
    // Not surely whole, or read first: the incoming value is read.
    for body in [
        "for i in 1..y.len() { y[i] = 0.0; } s = y[0];",
        "for i in 0..=y.len() - 1 { y[i] = 0.0; } s = y[0];",
        "for i in 0..n { y[i] = 0.0; } s = y[0];",
        "for i in 0..y.len() { if i == 1 { continue; } y[i] = 0.0; } s = y[1];",
        "'a: for i in 0..y.len() { y[i] = x; if i > 2 { break 'a; } } s = y[4];",
        "for i in 0..y.len() { y[i] = x; if i > 2 { break; } } s = y[4];",
        "for i in 0..y.len() { let i = 0; y[i] = 0.0; } s = y[1];",
        "for i in 0..y.len() { s += y[i]; y[i] = 0.0; }",
        "for i in 0..y.len() { if c { y[i] = 0.0; } } s = y[1];",
        "for i in 0..y.len() { y[i + 1 - 1] = 0.0; } s = y[1];",
        "if c { for i in 0..y.len() { y[i] = 0.0; } } s = y[1];",
        "for i in 0..y.len() { f!(i); y[i] = 0.0; } s = y[1];",
        "for i in 0..x.len() { y[i] = 0.0; } s = y[1];",
    ] {
        assert!(reads(body), "{body}");
    }
}

#[test]
fn whole_writes_by_methods_and_constants() {
    for (body, len) in [
        ("y.fill(0.0); s = y[3];", None),
        ("y.copy_from_slice(&x); s = y.iter().sum();", None),
        ("y[0] = x; y[1] = 2.0 * x; s = y[0] * y[1]; g(y);", Some(2)),
        ("*y = x; *y *= 2.0; s = y.sqrt();", Some(1)),
        ("*y = [x, x]; s = y[1];", Some(2)),
        ("for i in 0..3 { y[i] = x; } s = y[2];", Some(3)),
        ("s = y.len() as f64; y.fill(x);", None),
    ] {
        assert!(!reads_in(body, len), "{body}");
    }
    for (body, len) in [
        ("y[0] = x; s = y[1];", Some(2)),
        ("y[0] = x; y[1] = x; g(y);", Some(3)),
        ("s = y[0]; y.fill(0.0);", None),
        ("if c { y.fill(0.0); } s = y[0];", None),
        ("y.fill(y[0]);", None),
        ("*y *= 2.0;", Some(1)),
        ("for i in 0..3 { y[i] = x; } s = y[3];", Some(4)),
        ("for i in 0..3 { y[i] = x; } s = y[3];", None),
        ("for i in 0..3 { y[i] = x; } g(y);", Some(4)),
    ] {
        assert!(reads_in(body, len), "{body}");
    }
}

#[test]
fn elements_read_after_they_are_written() {
    for body in [
        // The prefix scan: `y[i - 1]` written before the loop or by the iteration before.
        "y[0] = x[0]; for i in 1..x.len() { y[i] = y[i - 1] + x[i]; }",
        "y[0] = x[0]; for i in 1..x.len() { let p = y[i - 1]; y[i] = p + x[i]; s += y[i - 1]; }",
        "y[0] = 1.0; y[1] = 1.0; for i in 2..n { y[i] = y[i - 1] + y[i - 2]; }",
        "y[0] = 1.0; for i in 1..n { y[i] = x; if c { break; } for j in 0..m { s += y[i - 1]; } }",
        // Same iteration, after the write.
        "for i in 0..n { y[i] = x[i]; y[i] *= 2.0; y[i] += y[i]; }",
        "for i in 0..n { y[2 * i + 1] = x[i]; s += y[2 * i + 1]; }",
        "y[k] = x; s = y[k];",
        "y[0] = x; if c { s = y[0]; } else { s = 1.0; }",
        "if c { y[0] = x; } else { y[0] = 2.0; } s = y[0];",
        "y[0] = x; let f = |v: f64| v * y[0];",
        // Every element below the iteration's, in an inner loop (forward substitution).
        "for i in 0..n { let mut t = b[i]; if i > 1 { for j in 0..i - 1 { t -= l[j] * y[j]; } } y[i] = t; }",
        "for i in 0..n { let mut t = b[i]; for j in (0..i).rev() { t -= y[j]; } y[i] = t; }",
        "y[0] = 1.0; for i in 1..n { for j in 0..=i - 1 { s += y[j]; } y[i] = s; }",
    ] {
        assert!(!reads(body), "{body}");
    }
    for body in [
        // The prefix scan without the element before the loop, or an iteration that may not write.
        "for i in 1..x.len() { y[i] = y[i - 1] + x[i]; }",
        "for i in 0..x.len() { y[i] = y[i - 1] + x[i]; }",
        "y[0] = x[0]; for i in 1..n { if c { y[i] = x[i]; } s += y[i - 1]; }",
        "y[0] = x[0]; for i in 1..n { if c { continue; } y[i] = y[i - 1]; }",
        "y[0] = x[0]; for i in 1..n { s += y[i - 2]; y[i] = x[i]; }",
        "y[1] = x[0]; for i in 1..n { y[i] = y[i - 1]; }",
        "y[0] = x[0]; for i in (1..n).rev() { y[i] = y[i - 1]; }",
        "y[0] = x[0]; for i in (1..n).step_by(2) { y[i] = y[i - 1]; }",
        "y[0] = x[0]; for mut i in 1..n { y[i] = x; i += 1; s = y[i - 1]; }",
        "y[0] = x[0]; for i in 1..n { let i = i + 1; y[i] = y[i - 1]; }",
        "y[0] = x[0]; for i in 1..n { y[i] = x[i]; } s = y[n - 1];",
        // An inner loop reaching the iteration's own element, or below the first.
        "for i in 0..n { let mut t = b[i]; for j in 0..=i { t -= y[j]; } y[i] = t; }",
        "for i in 1..n { let mut t = b[i]; for j in 0..i { t -= y[j]; } y[i] = t; }",
        "for i in 0..n { let mut t = b[i]; for j in 0..i + 1 { t -= y[j]; } y[i] = t; }",
        "for i in 0..n { let mut t = b[i]; for j in 0..i { let j = j + 1; t -= y[j]; } y[i] = t; }",
        "for i in 0..n { let mut t = b[i]; for j in 0..m { t -= y[j]; } y[i] = t; }",
        "for i in 0..n { let mut t = b[i]; for j in 0..i { t -= y[j]; } if c { y[i] = t; } }",
        // Before the write, or at another element.
        "for i in 0..n { y[i] += x[i]; }",
        "for i in 0..n { s += y[i]; y[i] = x[i]; }",
        "for i in 0..n { y[i] = x[i]; s += y[i + 1]; }",
        // The index changed between the write and the read.
        "y[k] = x; k += 1; s = y[k];",
        "y[k] = x; let k = k + 1; s = y[k];",
        "y[k] = x; bump(&mut k); s = y[k];",
        "y[k] = x; if c { k = 2; } s = y[k];",
        "y[k] = x; for k in 0..2 { s += y[k]; }",
        "y[k] = x; while c { s += y[k]; k += 1; }",
        "{ let k = 1; y[k] = x; } s = y[k];",
        "y[f(k)] = x; s = y[f(k)];",
        "y[k] = x; m!(k); s = y[k];",
        // A branch that may not write, a labelled block left early.
        "if c { y[0] = x; } s = y[0];",
        "match m { 0 => y[0] = x, _ => {} } s = y[0];",
        "'a: { if c { break 'a; } y.fill(0.0); } s = y[0];",
        "'a: { if c { break 'a; } y[0] = 1.0; } s = y[0];",
        // Reads through other names, calls and macros.
        "let z = &mut *y; z[0] = x; s = y[0];",
        "s = total(y); y.fill(0.0);",
        "s = y.iter().sum(); y.fill(0.0);",
        "g(x, y); s = y[0];",
        "println!(\"{}\", y[0]); y.fill(0.0);",
        "let r = || y[0]; y.fill(0.0); s = r();",
        "let mut w = |v| y[0] = v; w(x); s = y[0];",
        // The name bound again: the parameter's later uses are another value.
        "{ let y = &mut z; y.fill(0.0); } s = y[0];",
    ] {
        assert!(reads(body), "{body}");
    }
}

#[test]
fn writes_that_may_not_happen_and_indices_that_move_are_reads() {
    for body in [
        // A checked copy end of another length than its loop's (`copy_len(hi - 1, ..)`).
        "let lo = 0; let hi = y.len(); let e = lo + ::autodiff::__private::copy_len(hi - 1, a.len()); for i in lo..e { y[i] = a[i]; } g(y);",
        "let lo = 0; let hi = y.len(); let e = lo + copy_len(hi - lo, a.len()); for i in lo..e { y[i] = a[i]; } g(y);",
        // A window's checked end from another start than its loop's.
        "let lo = 0; let hi = 1 + ::autodiff::__private::window_len(y.len(), lo, y.len()); for i in lo..hi { y[i] = x; } g(y);",
        // A closure that moves the index, called between the write and the read.
        "y[i] = x; let mut b = || i += 1; b(); s = y[i];",
        "y[i] = x; (0..1).for_each(|_| i += 1); s = y[i];",
        // A write on the right of `&&` / `||`: it may not run.
        "c && { y[0] = x; true }; s = y[0];",
        "c || { y[0] = x; true }; s = y[0];",
        "if c && { y[0] = x; true } { s = 1.0; } s = y[0];",
        "y[0] = x; c && { y[0] = 2.0; true }; y[1] = x; s = y[1]; c || { s += y[2]; true };",
        // A compound assignment whose value moves the index: a primitive's place is evaluated after it.
        "y[i] = x; y[i] += { i += 1; x };",
        "y[i] = x; y[i] *= w[{ i += 1; 0 }];",
        "y[i] = x; s = y[{ i += 1; i }];",
        "y[i] = x; s = y[i + { i += 1; 0 }];",
        // A destructuring assignment that swaps or changes the index.
        "y[i] = x; (i, j) = (j, i); s = y[i];",
        "y[i] = x; [i, j] = [j, i]; s = y[i];",
        "y[i] = x; (i, _) = (j, 0); s = y[i];",
        "y[i] = x; ((i, k), j) = ((j, 1), 2); s = y[i];",
        "y[i] = x; P { a: i } = p; s = y[i];",
        "y[i] = x; P(i) = p; s = y[i];",
        // An `if let` / `while let` / `match` binding that shadows the index.
        "if let Some(i) = o { y[i] = x; } else { y[i] = x; } s = y[i];",
        "if let Some(i) = o && c { y[i] = x; } else { y[i] = x; } s = y[i];",
        "while let Some(i) = o { y[i] = x; } s = y[i];",
        "y[i] = x; match o { Some(i) => s = y[i], None => {} }",
        "match o { Some(i) => y[i] = x, None => y[i] = x } s = y[i];",
        "y[i] = x; if let Some(i) = o { s = y[i]; }",
        "y[i] = x; { let i = 2; s = y[i]; }",
        "if c { let i = 3; y[i] = x; } else { y[i] = x; } s = y[i];",
        // Leaving a loop before its write, by a label or a macro.
        "'o: for k in 0..m { y[0] = x; for i in 1..n { if c { continue 'o; } y[i] = y[i - 1]; } }",
        "for i in 0..y.len() { if c { break; } y[i] = x; } s = y[1];",
        "for i in 0..y.len() { 'b: { if c { break 'b; } y[i] = x; } } s = y[1];",
        "for i in 0..y.len() { y[i] = x; stop!(); } s = y[1];",
        "for i in 0..y.len() { y[i] = x; if c { println!(\"{}\", { break; }); } } s = y[1];",
        // Writes inside macros, and names changed by them or through references.
        "debug_assert!({ y[0] = x; true }); s = y[0];",
        "y[i] = x; m!(i); s = y[i];",
        "y[i] = x; let r = &mut i; *r += 1; s = y[i];",
        "y[i] = x; std::mem::swap(&mut i, &mut j); s = y[i];",
        "y[i] = x; i.add_assign(1); s = y[i];",
    ] {
        assert!(reads(body), "{body}");
    }
    // What stays precise: the index unchanged, or the value assigned before the place.
    for body in [
        "y[0] = x; for i in 1..n { if c { break; } y[i] = x; s += y[i - 1]; }",
        "for i in 0..y.len() { y[i] = x; } let mut b = || y[0] = 1.0; s = y[1];",
        "y[0] = x; for i in 1..n { y[i] = (|| i)() as f64; s += y[i]; }",
        "y[i] = x; let c = Cell::new(0); s = y[i];",
        "y[i] = { i += 1; x }; s = y[i];",
        "y[i] = x; y[i] += { j += 1; x };",
        "y[i] = x; (j, k) = (k, j); s = y[i];",
        "for i in 0..y.len() { y[i] = x; assert!(x > 0.0); } s = y[1];",
        "if let Some(j) = o { y[i] = x; } else { y[i] = x; } s = y[i];",
        "y[0] = x; c && y[0] > 1.0; s = y[0];",
        // An `assert!`'s condition always runs (`asserts.rs` makes it the condition of a branch): a write in
        // it happens, as in the function; a `debug_assert!`'s may not (above).
        "assert!({ y[0] = x; true }); s = y[0];",
    ] {
        assert!(!reads(body), "{body}");
    }
}

#[test]
fn more_programs_write_before_they_read() {
    for (body, len) in [
        // Descending loops: back substitution, suffix scans.
        ("y[n - 1] = b[n - 1]; for i in (0..n - 1).rev() { y[i] = b[i] - y[i + 1]; }", None),
        ("for i in (0..y.len()).rev() { if i + 1 < y.len() { s = y[i + 1]; } y[i] = s; }", None),
        ("y[4] = x; for i in (0..4).rev() { y[i] = y[i + 1] * x; } s = y[0];", None),
        ("for i in (0..n).rev() { let mut t = b[i]; for j in i + 1..n { t -= u[i * n + j] * y[j]; } y[i] = t; }", None),
        ("for i in (0..y.len()).rev() { y[i] = x; } s = y[2]; g(y);", None),
        // Sub-slices that together cover the buffer.
        ("y[..k].copy_from_slice(&a); y[k..].copy_from_slice(&b); g(y);", None),
        ("y[..2].copy_from_slice(&x[2..4]); y[2..].fill(x[0]); y[3] += y[0];", None),
        ("y[0..2].fill(x); s = y[1];", None),
        ("y[..2].fill(x); y[2..4].fill(x); s = y[3]; g(y);", Some(4)),
        // Two loops covering the buffer, a loop over the run another wrote.
        ("for i in 0..k { y[i] = x; } for i in k..y.len() { y[i] = 2.0 * x; } g(y);", None),
        ("for i in 0..z.len() { y[i] = z[i].exp(); s += y[i]; } for i in 0..z.len() { y[i] /= s; }", None),
        ("for i in 0..n { y[i] = x; } for j in (0..n).rev() { s += y[j]; }", None),
        ("y[..n].fill(x); for j in 1..n { s += y[j]; }", None),
        // The bounds through plain `let`s, as `slice_writes.rs` writes sub-slice writes.
        ("let n = y.len(); for i in 0..n { y[i] = x; } g(y);", None),
        ("{ let lo = 0; let hi = k; for i in lo..hi { y[i] = x[i - lo]; } } { let lo = k; let hi = y.len(); let v = x; for i in lo..hi { y[i] = v; } } g(y);", None),
        // A copy's checked end (`copy_len` gives its first argument or panics).
        ("{ let lo = 0; let hi = k; let e = lo + ::autodiff::__private::copy_len(hi - lo, a.len()); for i in lo..e { y[i] = a[i - lo]; } } { let lo = k; let hi = y.len(); let e = lo + ::autodiff::__private::copy_len(hi - lo, b.len()); for i in lo..e { y[i] = b[i - lo]; } } g(y);", None),
        // A sub-slice receiver's checked end (`window_len(n, a, e)` gives `e - a` or panics), as
        // `slice_writes.rs` writes `y[..k].copy_from_slice(..)` and `y[k..].fill(..)`.
        ("{ let lo = 0; let hi = lo + ::autodiff::__private::window_len(y.len(), lo, k); let e = lo + ::autodiff::__private::copy_len(hi - lo, a.len()); for i in lo..e { y[i] = a[i - lo]; } } { let lo = k; let hi = lo + ::autodiff::__private::window_len(y.len(), lo, y.len()); let v = x; for i in lo..hi { y[i] = v; } } g(y);", None),
        // `while` counters.
        ("let mut i = 0; while i < n { y[i] = x; i += 1; } for j in 0..n { s += y[j]; }", None),
        ("let mut i = 0; while i < y.len() { y[i] = x; s += y[i]; i += 1; } g(y);", None),
        ("y[0] = x; let mut i = 1; while i < n { y[i] = y[i - 1] * x; i += 1; }", None),
        ("let mut i = 0; while i < y.len() { y[i] = x; i = i + 1; } g(y);", None),
        // A sub-slice write reads nothing, whatever its bounds (as the loop `slice_writes.rs` makes of it).
        ("y[..y.len() - 1].fill(x);", None),
        ("y[..f(k)].copy_from_slice(&x[..f(k)]); y[0] = x[0]; s = y[0];", None),
        // Shifted and reversed writes.
        ("y[0] = x; for i in 0..y.len() - 1 { y[i + 1] = x; } g(y);", None),
        ("y[0] = x; for i in 0..n - 1 { y[i + 1] = y[i] * x; }", None),
        ("y[0] = x; y[1] = x; for i in 0..n - 2 { y[i + 2] = y[i] * x; }", None),
        // Writes in both branches.
        ("if c { y.fill(x); } else { for i in 0..y.len() { y[i] = x; } } g(y);", None),
        ("match m { 0 => { y[1] = x; y[0] = x; } _ => { y[..2].fill(x); } } s = y[0] + y[1];", None),
    ] {
        assert!(!reads_in(body, len), "{body}");
    }
    for (body, len) in [
        // The element above the first iteration not written, or the loop may stop early.
        ("for i in (0..n - 1).rev() { y[i] = b[i] - y[i + 1]; }", None),
        ("y[n - 2] = x; for i in (0..n - 1).rev() { y[i] = y[i + 1]; }", None),
        ("y[n - 1] = x; for i in (0..n - 1).rev() { y[i] = y[i + 2]; }", None),
        ("y[n - 1] = x; for i in (0..n - 1).rev() { if c { y[i] = x; } s += y[i + 1]; }", None),
        ("y[n - 1] = x; for i in (0..n - 1).rev() { s += y[i + 1]; y[i] = x; n -= 0; }", None),
        ("for i in (0..n).rev() { let mut t = b[i]; for j in i..n { t -= y[j]; } y[i] = t; }", None),
        ("for i in (0..n).rev() { let mut t = b[i]; for j in i + 1..m { t -= y[j]; } y[i] = t; }", None),
        ("for i in (0..n).rev() { let mut t = b[i]; for j in i + 1..n + 1 { t -= y[j]; } y[i] = t; }", None),
        ("for i in (0..y.len()).rev() { y[i] = x; if c { break; } } s = y[0];", None),
        ("for i in (0..y.len() - 1).rev() { y[i] = x; } g(y);", None),
        // Sub-slices that leave a gap, or whose bound changed.
        ("y[..k].fill(x); y[k + 1..].fill(x); g(y);", None),
        ("y[..k].fill(x); k += 1; y[k..].fill(x); g(y);", None),
        ("y[..2].fill(x); s = y[2];", None),
        ("y[1..].fill(x); s = y[0];", None),
        ("y[..k].fill(x); s = y[k];", None),
        ("y[..2].fill(x); y[2..3].fill(x); g(y);", Some(4)),
        ("y[..k].copy_from_slice(&y[1..]);", None),
        // Bounds through names that changed or were bound again.
        ("let n = k; k += 1; for i in 0..n { y[i] = x; } for i in 0..k { s += y[i]; }", None),
        ("let n = y.len() - 1; for i in 0..n { y[i] = x; } g(y);", None),
        ("let n = y.len(); let n = 2; for i in 0..n { y[i] = x; } g(y);", None),
        ("let mut n = y.len(); n -= 1; for i in 0..n { y[i] = x; } g(y);", None),
        ("let n = y.len(); for n in 0..2 { for i in 0..n { y[i] = x; } } g(y);", None),
        // `while` counters that may skip an element, start unknown, or stop early.
        ("let mut i = 0; while i < n { if c { y[i] = x; } i += 1; } for j in 0..n { s += y[j]; }", None),
        ("let mut i = k; while i < y.len() { y[i] = x; i += 1; } g(y);", None),
        ("let mut i = 0; i += 1; while i < y.len() { y[i] = x; i += 1; } g(y);", None),
        ("let mut i = 0; while i < y.len() { y[i] = x; i += 2; } g(y);", None),
        ("let mut i = 0; while i < y.len() { y[i] = x; i = i + 2; } g(y);", None),
        ("let mut i = 0; while i < y.len() { y[i] = x; i = j + 1; } g(y);", None),
        ("let mut i = 0; while i < y.len() { y[i] = x; i += 1; if c { break; } } g(y);", None),
        ("let mut i = 0; while i < y.len() { i += 0; y[i] = x; i += 1; } g(y);", None),
        ("let mut i = 0; while i < y.len() { if c { continue; } y[i] = x; i += 1; } g(y);", None),
        ("let mut i = 0; while i < n { y[i] = x; n += 1; i += 1; } for j in 0..n { s += y[j]; }", None),
        ("y[0] = x; let mut i = 1; while i < n { s += y[i]; y[i] = x; i += 1; }", None),
        ("let mut i = 0; while i < n { y[i] = x; i += 1; } s = y[i];", None),
        // Huge literals: no walk over them, no overflow.
        ("for i in 0..1000000000000 { y[i] = x; } s = y[1000000000000];", None),
        ("y[18446744073709551615] = x; for i in 0..=18446744073709551615 { y[i] = x; } g(y);", None),
        ("for i in (0..18446744073709551615).rev() { y[i + 18446744073709551615] = x; } g(y);", None),
        // Sub-slice writes whose bounds are not understood write nothing known (and read nothing).
        ("y[..y.len() - 1].fill(x); s = y[0];", None),
        ("y[..k].fill({ k += 1; x }); s = y[0]; g(y);", None),
        ("y[..k].copy_from_slice(&y[1..]);", None),
        // Loops that do not cover the run read.
        ("for i in 0..k { y[i] = x; } for i in k + 1..y.len() { y[i] = x; } g(y);", None),
        ("for i in 0..k { y[i] = x; if c { break; } } for i in 0..k { s += y[i]; }", None),
        ("for i in 0..n { y[i] = x; n += 0; } for j in 0..n { s += y[j]; }", None),
        ("for i in 0..n { y[i] = x; } for j in 0..=n { s += y[j]; }", None),
        ("for i in 0..n { if c { y[i] = x; } } for j in 0..n { s += y[j]; }", None),
        ("y[0] = x; for i in 0..y.len() - 2 { y[i + 1] = x; } g(y);", None),
        ("for i in 0..n - 1 { y[i + 1] = y[i] * x; }", None),
        ("y[0] = x; for i in 0..n - 1 { if c { y[i + 1] = x; } s += y[i]; }", None),
        ("y[0] = x; for i in 0..n - 1 { s += y[i + 1]; y[i + 1] = x; }", None),
        ("y[0] = x; for i in 0..n - 2 { y[i + 2] = y[i + 1]; }", None),
        // One branch that may not write.
        ("if c { y.fill(x); } else { y[..2].fill(x); } g(y);", None),
        ("match m { 0 => { y[1] = x; } _ => { y[..2].fill(x); } } s = y[0];", None),
    ] {
        assert!(reads_in(body, len), "{body}");
    }
}

#[test]
fn a_zip_bounded_loop_writes_the_run_its_shorter_side_bounds() {
    // The run `[0, min(y.len(), x.len()))` again, or an element the literals prove inside it.
    for (body, len) in [
        ("for (o, a) in y.iter_mut().zip(x) { *o = a * 2.0; } for (o, a) in y.iter_mut().zip(x) { *o *= a; }", None),
        ("for (o, a) in y.iter_mut().zip(x) { *o = *a; } for i in 0..usize::min(y.len(), x.len()) { s += y[i]; }", None),
        ("for i in 0..std::cmp::min(n, m) { y[i] = x; } for j in 0..std::cmp::min(n, m) { s += y[j]; }", None),
        ("for i in 0..usize::min(3, 4) { y[i] = x; } s = y[2];", None),
        ("for i in 0..usize::min(2, y.len()) { y[i] = x; } s = y[1];", Some(2)),
        // The rest of the buffer written after the run: the two chain to its length.
        ("for (o, a) in y.iter_mut().zip(x) { *o = *a; } for i in usize::min(y.len(), x.len())..y.len() { y[i] = 0.0; } g(y);", None),
    ] {
        assert!(!reads_in(body, len), "{body}");
    }
    // Not the whole buffer (`x` may be shorter, whatever `y`'s length), nor a run whose bound may change.
    for (body, len) in [
        ("for (o, a) in y.iter_mut().zip(x) { *o = a * 2.0; } s = y.iter().sum();", None),
        ("for (o, a) in y.iter_mut().zip(x) { *o = a * 2.0; } s = y[0];", None),
        ("for (o, a) in y.iter_mut().zip(x) { *o = a * 2.0; } s = y[1];", Some(2)),
        ("for (o, a) in y.iter_mut().zip(x.iter()) { *o = *a; } g(y);", Some(3)),
        ("for (o, a) in y.iter_mut().zip(x) { *o = *a; } x = z; for (o, a) in y.iter_mut().zip(x) { *o *= *a; }", None),
        ("let n = k; for i in 0..usize::min(n, m) { y[i] = x; } let n = k + 1; for j in 0..usize::min(n, m) { s += y[j]; }", None),
        ("for i in 0..usize::min(n, m) { y[i] = x; } m += 1; for j in 0..usize::min(n, m) { s += y[j]; }", None),
        ("for i in 0..min(n, m) { y[i] = x; } for j in 0..min(n, m) { s += y[j]; }", None),
        ("for i in 0..usize::max(n, m) { y[i] = x; } for j in 0..usize::max(n, m) { s += y[j]; }", None),
        ("for i in 0..usize::min(3, 4) { y[i] = x; } s = y[3];", None),
    ] {
        assert!(reads_in(body, len), "{body}");
    }
}

#[test]
fn an_index_that_may_be_a_static_mut_never_counts() {
    // `K` may be a `static mut` that a call changes between the write and the read: a body with `unsafe`
    // reads the incoming value (the fence rejects it anyway, `tests/ui/fence/unsafe-static-mut-index.rs`).
    for body in [
        "unsafe { y[K] = x; bump(); s = y[K]; }",
        "unsafe { K = 0; while K < y.len() { y[K] = x; K += 1; bump(); } } g(y);",
        "y.fill(x); s = unsafe { y[K] };",
        "let f = || unsafe { K += 1 }; y.fill(x); s = y[0];",
    ] {
        assert!(reads(body), "{body}");
    }
}
