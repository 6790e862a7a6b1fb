//! Adversarial programs for the forms `autodiff-macros/src/sugar.rs` rewrites (destructuring assignments,
//! labeled block values, `match` guards and bindings), for `#[no_grad]` integer and flag array fields
//! (`integer_fields.rs`), and for `x as f32` / `n as f32` passed to plain helpers with `order = 2`: each
//! gradient against central differences of the function (and by hand where short), each Hessian against
//! central differences of `_grad`, on many inputs.
//!
//! Programs that exposed a defect: `nested` (a nested array part in a destructuring assignment was an
//! unspanned `let`-pattern error), `lab_tuple`, `lab_array`, `lab_bool` (a labeled block's tuple, array or
//! `bool` value carried out of a nested loop: E0277, no `Zero`), `cast_helper_x`, `d4` (`flag(x as f32)`
//! in the generic copy: E0573).

// The forms under test are the ones users write, which clippy would rewrite.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_swap,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::float_cmp,
    clippy::collapsible_else_if,
    clippy::let_and_return,
    clippy::assign_op_pattern,
    clippy::explicit_counter_loop,
    clippy::match_single_binding,
    non_snake_case,
    unused_assignments
)]
mod common;
use autodiff::{differentiable, Differentiable};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_jacobian, fd_jacobian, Inputs,
};

/// Value, gradient against differences of `f`, Hessian against differences of the gradient.
#[track_caller]
fn check(
    what: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
) {
    let (value, g) = grad(x);
    assert_eq!(value, f(x), "{what}: the value at {x:?}");
    assert_fd_gradient(&f, x, &g, &format!("{what}: _grad"));
    let (hv, hg, h) = hessian(x);
    assert_close(hv, value, 1e-12, &format!("{what}: the Hessian's value"));
    assert_all_close(&hg, &g, 1e-12, &format!("{what}: the Hessian's gradient"));
    assert_jacobian(
        &h,
        &fd_jacobian(|x| grad(x).1, x),
        &format!("{what}: the Hessian at {x:?}"),
    );
}

/// Is every pair of `xs` and every element farther than `gap` apart (no branch flips within a step)?
fn apart(xs: &[f64], edges: &[f64], gap: f64) -> bool {
    xs.iter().enumerate().all(|(i, a)| {
        xs[i + 1..].iter().all(|b| (a - b).abs() > gap) && edges.iter().all(|e| (a - e).abs() > gap)
    })
}

// A: swap inside a loop reading both
#[differentiable(order = 2)]
fn swap_loop(x: &[f64], y: f64) -> f64 {
    let (mut a, mut b) = (y, 1.0);
    for i in 0..x.len() {
        (a, b) = (b, a * x[i]);
    }
    a + b * b
}

// B: index places colliding, last wins
#[differentiable(order = 2)]
fn collide(x: f64, y: f64, i: usize, j: usize) -> f64 {
    let mut v = [0.0, 0.0];
    (v[i], v[j]) = (x * x, y * x);
    v[0] + 3.0 * v[1]
}

// C: nested destructuring
#[differentiable(order = 2)]
fn nested(x: f64, y: f64) -> f64 {
    let (mut a, mut b, mut c, mut d) = (x, y, 1.0, 2.0);
    ((a, b), [c, d]) = ((c * a, d), [a * b, b.sin()]);
    a * b + c * d
}

// D: right side with side effects on a target
#[differentiable(order = 2)]
fn side_effect(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    (a, b) = (
        {
            a = a * 2.0;
            a * y
        },
        a + b,
    );
    a * b
}

// E: index place reading a target assigned earlier in the tuple
#[differentiable(order = 2)]
fn index_after(x: &[f64]) -> f64 {
    let mut v = [x[0], x[1], x[2]];
    let mut i = 0;
    (v[i], i) = (x[1] * x[2], 2);
    (i, v[i]) = (1, x[0].exp());
    v[0] * v[1] + v[2] + i as f64
}

// I: right side is a tuple variable
#[differentiable(order = 2)]
fn from_var(x: f64, y: f64) -> f64 {
    let t = (x * y, y);
    let mut a = 0.0;
    let mut b = 0.0;
    (a, b) = t;
    a * b.cos()
}

// K: labeled block in a loop, value active out of a nested loop
#[differentiable(order = 2)]
fn lab_nested(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = 'a: {
            for j in 0..x.len() {
                if x[j] > x[i] {
                    break 'a x[j] * x[i];
                }
            }
            x[i].sin()
        };
        s += v * v;
    }
    s
}

// M: continue 'outer from inside a nested loop in the block
#[differentiable(order = 2)]
fn lab_continue(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..x.len() {
        let v = 'a: {
            for j in 0..x.len() {
                if j != i && x[j] > x[i] + 0.5 {
                    continue 'outer;
                }
                if j != i && x[j] > x[i] {
                    break 'a x[j] * x[i];
                }
            }
            x[i].exp()
        };
        s += v;
    }
    s
}

// N: nested labeled blocks breaking the outer from inner
#[differentiable(order = 2)]
fn lab_in_lab(x: f64, y: f64) -> f64 {
    let v = 'a: {
        let u = 'b: {
            if x > 0.0 {
                break 'a x * y;
            }
            if y > 0.0 {
                break 'b y * y;
            }
            x.sin()
        };
        u + x
    };
    v * 2.0
}

// compound assignment of a labeled block with a value out of a nested loop
#[differentiable(order = 2)]
fn lab_compound(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += 'a: {
            for j in 0..i {
                if x[j] > 0.0 {
                    break 'a x[j] * x[i];
                }
            }
            x[i]
        };
    }
    s
}

// R: integer value out of a nested loop
#[differentiable(order = 2)]
fn lab_index(x: &[f64]) -> f64 {
    let k = 'a: {
        for i in 0..x.len() {
            if x[i] > 0.0 {
                break 'a i;
            }
        }
        0
    };
    x[k] * x[k] * x[0]
}

// T: guard reads a variable the arm then writes
#[differentiable(order = 2)]
fn guard_reads(x: f64, k: usize) -> f64 {
    let mut s = x;
    let r = match k {
        n if s > 0.5 => {
            s = s * x;
            s + n as f64
        }
        n if s < -0.5 => {
            s = s.exp();
            s * n as f64
        }
        _ => s * s,
    };
    r + s
}

// V: several guarded arms on the same pattern, match without catch-all (bool)
#[differentiable(order = 2)]
fn same_pattern(x: f64, k: usize, b: bool) -> f64 {
    let u = match k {
        0 if x > 0.0 => x * x,
        0 if x < -1.0 => x.exp(),
        0 => x.sin(),
        n if n > 3 => x * n as f64,
        _ => x,
    };
    let w = match b {
        true if u > 0.5 => u * x,
        true => u + x,
        false => u * u,
    };
    w
}

// X: match as a value in a loop with guards on active floats, integer bindings
#[differentiable(order = 2)]
fn match_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += match i % 3 {
            r if x[i] > 0.0 => x[i] * (r as f64 + 1.0),
            0 => x[i] * x[i],
            r => x[i].sin() * r as f64,
        };
    }
    s
}

// guard with a side effect on another local
#[differentiable(order = 2)]
fn guard_side(x: f64, k: usize) -> f64 {
    let mut c = 0;
    let mut s = x;
    let v = match k {
        n if {
            c += 1;
            n > 2
        } =>
        {
            x * 2.0
        }
        n if {
            c += 1;
            s = s * x;
            n > 1
        } =>
        {
            s
        }
        _ => x.cos(),
    };
    v * c as f64 + s
}

// match on a float local rebinding in a loop (scrutinee is a local path re-read)
#[differentiable(order = 2)]
fn float_local(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        let t = x[i] * 2.0;
        acc = match t {
            v if v > acc => v * acc + v,
            v => acc - v * v,
        };
    }
    acc
}

// binding by @ with a range and a guard, bindings mut
#[differentiable(order = 2)]
fn at_bind(x: f64, k: i32) -> f64 {
    match k {
        mut n @ 1..=4 if n % 2 == 1 => {
            n += 1;
            x * n as f64
        }
        n @ (5 | 6) => x.powi(n),
        n => x.powi(2) + n as f64,
    }
}

// guards after a binding-free arm, no catch-all body of its own
#[differentiable(order = 2)]
fn const_pat(x: f64, k: usize) -> f64 {
    match k {
        n if n > 5 => x.exp(),
        _ => x,
    }
}

// ---- casts to f32 passed to plain helpers, labeled blocks of tuples, arrays, bools

fn helper(v: f32) -> f32 {
    v * 2.0
}
fn flag(v: f32) -> bool {
    v > 0.5
}

#[differentiable(order = 2)]
fn cast_helper(x: f64, n: usize) -> f64 {
    let h = helper(n as f32);
    x * x * h as f64
}

#[differentiable(order = 2)]
fn cast_helper_x(x: f64) -> f64 {
    if flag(x as f32) {
        x * x
    } else {
        x.sin()
    }
}

// tuple-valued labeled block broken out of a nested loop
#[differentiable(order = 2)]
fn lab_tuple(x: &[f64]) -> f64 {
    let (a, b) = 'a: {
        for i in 0..x.len() {
            if x[i] > 0.0 {
                break 'a (x[i], x[i] * x[0]);
            }
        }
        (x[0], 1.0)
    };
    a * b
}

#[differentiable(order = 2)]
fn lab_array(x: &[f64]) -> f64 {
    let v = 'a: {
        for i in 0..x.len() {
            if x[i] > 0.0 {
                break 'a [x[i], x[i] * x[0]];
            }
        }
        [x[0], 1.0]
    };
    v[0] * v[1]
}

#[differentiable(order = 2)]
fn lab_bool(x: &[f64]) -> f64 {
    let found = 'a: {
        for i in 0..x.len() {
            if x[i] > 0.5 {
                break 'a true;
            }
        }
        false
    };
    if found {
        x[0] * x[1]
    } else {
        x[0]
    }
}

#[differentiable(order = 2)]
fn d1(x: f64, n: usize) -> f64 {
    let w: f32 = helper(n as f32);
    ((x as f32) * w) as f64
}
#[differentiable(order = 2)]
fn d3(x: f64, n: usize) -> f64 {
    let s = helper(n as f32) + helper(1.5);
    x * s as f64
}
#[differentiable(order = 2)]
fn d4(x: f64) -> f64 {
    if helper(x as f32) > 1.0 {
        x * x
    } else {
        -x
    }
}

fn weight(v: f32) -> f64 {
    v as f64 * 0.5
}

#[differentiable(order = 2)]
fn c1(x: f64, n: usize) -> f64 {
    x * x * helper(n as f32) as f64
}

#[differentiable(order = 2)]
fn c3(x: f64, n: usize) -> f64 {
    x * weight(n as f32)
}

// ---- combinations

#[differentiable(order = 2)]
fn while_tuple(x: &[f64]) -> f64 {
    let (u, v) = 'a: {
        let mut i = 0;
        while i < x.len() {
            if x[i] > 0.2 {
                break 'a (x[i] * x[0], x[i].exp());
            }
            i += 1;
        }
        (x[1], x[2])
    };
    u * v
}

#[differentiable(order = 2)]
fn out_place(x: f64, y: f64, out: &mut f64) -> f64 {
    let mut b = 0.0;
    (*out, b) = (x * y, x + *out);
    b * y
}

// a guard that reads a variable the arm writes, inside a labeled block in a loop, with continue
#[differentiable(order = 2)]
fn mixed(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    'o: for i in 0..x.len() {
        let v = 'b: {
            for j in 0..i {
                match (i + j + k) % 4 {
                    0 if s > 1.0 => continue 'o,
                    m if x[j] > s => break 'b (x[j] * s + m as f64, x[i]),
                    _ => {}
                }
            }
            (x[i], 1.0)
        };
        (s, _) = (s + v.0 * v.1, 0.0);
    }
    s
}

// ---- a pattern's name in capitals that binds (a wrong gradient before: the body read the outer local `N`)

/// `N` names a local, so the arms' `N` are bindings, not constants.
#[differentiable(order = 2)]
fn capital_binding(x: f64, k: usize) -> f64 {
    let N = 5;
    let a = match k {
        N if N > 2 => x * x * N as f64,
        _ => x,
    };
    let b = match k + 1 {
        N => x.sin() * N as f64,
    };
    a + b * N as f64
}

/// `M` names nothing: a binding, read through the guarded arm's pattern.
#[differentiable(order = 2)]
fn capital_unknown(x: f64, k: usize) -> f64 {
    match k {
        M if M > 2 => x * x * M as f64,
        _ => x.exp(),
    }
}

// ---- #[no_grad] integer fields

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct M {
    pub w: Vec<f64>,
    pub b: Vec<f64>,
    #[no_grad]
    pub idx: Vec<usize>,
    #[no_grad]
    pub on: Vec<bool>,
}

// float field only measured here, but passed on whole to a callee that reads it
#[differentiable(order = 2)]
pub fn inner(p: &M, x: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..p.w.len() {
        s += p.w[k] * p.b[k] * x;
    }
    s
}

#[differentiable(order = 2)]
pub fn measured_and_passed(p: &M, x: f64) -> f64 {
    (p.w.len() as f64) * inner(p, x) + p.b[0]
}

// float field in a comparison and cast to usize for a loop bound
#[differentiable(order = 2)]
pub fn float_as_bound(p: &M, x: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..(p.w[0].abs() * 3.0) as usize {
        s += p.b[k % p.b.len()] * x;
    }
    if p.w[1] > 0.0 {
        s * p.w[1]
    } else {
        s
    }
}

// closure reading both
#[differentiable(order = 2)]
pub fn closure_both(p: &M, x: &[f64]) -> f64 {
    let term = |k: usize| p.w[k] * x[p.idx[k]];
    let mut s = 0.0;
    for k in 0..p.w.len() {
        s += term(k);
    }
    s
}

// for over the flags
#[differentiable(order = 2)]
pub fn flags_iter(p: &M, x: f64) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    for &f in p.on.iter() {
        if f {
            s += p.w[k] * x;
        } else {
            s += p.b[k] * x * x;
        }
        k += 1;
    }
    s
}

// float element alias compared with an integer-looking expression? (float == float)
#[differentiable(order = 2)]
pub fn float_eq(p: &M, x: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..p.w.len() {
        let v = p.w[k];
        if v == 0.0 {
            continue;
        }
        s += v * x;
    }
    s
}

const POINTS: usize = 60;

#[test]
fn probe_all() {
    let mut inputs = Inputs(77);
    for _ in 0..POINTS {
        let x = inputs.vec(4).iter().map(|v| 2.0 * v).collect::<Vec<f64>>();
        check(
            "swap_loop",
            &x,
            |x| swap_loop(&x[..3], x[3]),
            |x| {
                let (v, (g, gy)) = swap_loop_grad(&x[..3], x[3]);
                let mut g = g;
                g.push(gy);
                (v, g)
            },
            |x| {
                let (v, (g, gy), h) = swap_loop_hessian(&x[..3], x[3]);
                let mut g = g;
                g.push(gy);
                (v, g, h)
            },
        );
        for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            check(
                "collide",
                &x[..2],
                |x| collide(x[0], x[1], i, j),
                |x| {
                    let (v, (a, b)) = collide_grad(x[0], x[1], i, j);
                    (v, vec![a, b])
                },
                |x| {
                    let (v, (a, b), h) = collide_hessian(x[0], x[1], i, j);
                    (v, vec![a, b], h)
                },
            );
        }
        check(
            "nested",
            &x[..2],
            |x| nested(x[0], x[1]),
            |x| {
                let (v, (a, b)) = nested_grad(x[0], x[1]);
                (v, vec![a, b])
            },
            |x| {
                let (v, (a, b), h) = nested_hessian(x[0], x[1]);
                (v, vec![a, b], h)
            },
        );
        check(
            "side_effect",
            &x[..2],
            |x| side_effect(x[0], x[1]),
            |x| {
                let (v, (a, b)) = side_effect_grad(x[0], x[1]);
                (v, vec![a, b])
            },
            |x| {
                let (v, (a, b), h) = side_effect_hessian(x[0], x[1]);
                (v, vec![a, b], h)
            },
        );
        // a = 2x·y... by hand: a = (2x) y, b = 2x + y
        assert_close(
            side_effect(x[0], x[1]),
            2.0 * x[0] * x[1] * (2.0 * x[0] + x[1]),
            1e-12,
            "side_effect by hand",
        );
        check(
            "index_after",
            &x[..3],
            index_after,
            index_after_grad,
            index_after_hessian,
        );
        assert_close(
            index_after(&x[..3]),
            x[1] * x[2] * x[0].exp() + x[2] + 1.0,
            1e-12,
            "index_after by hand",
        );
        check(
            "from_var",
            &x[..2],
            |x| from_var(x[0], x[1]),
            |x| {
                let (v, (a, b)) = from_var_grad(x[0], x[1]);
                (v, vec![a, b])
            },
            |x| {
                let (v, (a, b), h) = from_var_hessian(x[0], x[1]);
                (v, vec![a, b], h)
            },
        );
        if apart(&x, &[0.0, 0.5, -0.5], 1e-3)
            && apart(
                &x.iter()
                    .map(|v| v + 0.5)
                    .chain(x.iter().copied())
                    .collect::<Vec<_>>(),
                &[],
                1e-3,
            )
        {
            check(
                "lab_nested",
                &x,
                lab_nested,
                lab_nested_grad,
                lab_nested_hessian,
            );
            check(
                "lab_continue",
                &x,
                lab_continue,
                lab_continue_grad,
                lab_continue_hessian,
            );
            check(
                "lab_compound",
                &x,
                lab_compound,
                lab_compound_grad,
                lab_compound_hessian,
            );
            check(
                "lab_index",
                &x,
                lab_index,
                lab_index_grad,
                lab_index_hessian,
            );
            check(
                "lab_in_lab",
                &x[..2],
                |x| lab_in_lab(x[0], x[1]),
                |x| {
                    let (v, (a, b)) = lab_in_lab_grad(x[0], x[1]);
                    (v, vec![a, b])
                },
                |x| {
                    let (v, (a, b), h) = lab_in_lab_hessian(x[0], x[1]);
                    (v, vec![a, b], h)
                },
            );
            check(
                "match_loop",
                &x,
                match_loop,
                match_loop_grad,
                match_loop_hessian,
            );
            check(
                "float_local",
                &x,
                float_local,
                float_local_grad,
                float_local_hessian,
            );
            for k in 0..7usize {
                let one =
                    |f: fn(f64, usize) -> f64,
                     g: fn(f64, usize) -> (f64, f64),
                     h: fn(f64, usize) -> (f64, f64, Vec<Vec<f64>>)| {
                        (
                            move |x: &[f64]| f(x[0], k),
                            move |x: &[f64]| {
                                let (v, d) = g(x[0], k);
                                (v, vec![d])
                            },
                            move |x: &[f64]| {
                                let (v, d, hh) = h(x[0], k);
                                (v, vec![d], hh)
                            },
                        )
                    };
                let (f, g, h) = one(guard_reads, guard_reads_grad, guard_reads_hessian);
                check("guard_reads", &x[..1], f, g, h);
                let (f, g, h) = one(guard_side, guard_side_grad, guard_side_hessian);
                check("guard_side", &x[..1], f, g, h);
                let (f, g, h) = one(const_pat, const_pat_grad, const_pat_hessian);
                check("const_pat", &x[..1], f, g, h);
                for b in [false, true] {
                    check(
                        "same_pattern",
                        &x[..1],
                        |x| same_pattern(x[0], k, b),
                        |x| {
                            let (v, d) = same_pattern_grad(x[0], k, b);
                            (v, vec![d])
                        },
                        |x| {
                            let (v, d, hh) = same_pattern_hessian(x[0], k, b);
                            (v, vec![d], hh)
                        },
                    );
                }
                check(
                    "at_bind",
                    &x[..1],
                    |x| at_bind(x[0], k as i32),
                    |x| {
                        let (v, d) = at_bind_grad(x[0], k as i32);
                        (v, vec![d])
                    },
                    |x| {
                        let (v, d, hh) = at_bind_hessian(x[0], k as i32);
                        (v, vec![d], hh)
                    },
                );
            }
        }
    }
}

/// `[p.to_flat(), rest]` split back.
fn model(p: &M, flat: &[f64]) -> (M, Vec<f64>) {
    let n = p.to_flat().len();
    (p.from_flat(&flat[..n]), flat[n..].to_vec())
}

fn model_at(inputs: &mut Inputs) -> M {
    M {
        w: inputs.vec(3),
        b: inputs.vec(3),
        idx: vec![2, 0, 1],
        on: vec![true, false, true],
    }
}

#[test]
fn integer_fields() {
    let mut inputs = Inputs(2323);
    for _ in 0..POINTS {
        let p = model_at(&mut inputs);
        let x = inputs.vec(3);
        let mut flat = p.to_flat();
        flat.push(x[0]);
        let scalar = |f: fn(&M, f64) -> f64,
                      g: fn(&M, f64) -> (f64, (M, f64)),
                      h: fn(&M, f64) -> (f64, (M, f64), Vec<Vec<f64>>)| {
            let p = p.clone();
            let q = p.clone();
            let r = p.clone();
            (
                move |v: &[f64]| {
                    let (m, x) = model(&p, v);
                    f(&m, x[0])
                },
                move |v: &[f64]| {
                    let (m, x) = model(&q, v);
                    let (value, (gm, gx)) = g(&m, x[0]);
                    assert_eq!((&gm.idx, &gm.on), (&m.idx, &m.on), "no_grad fields copied");
                    let mut g = gm.to_flat();
                    g.push(gx);
                    (value, g)
                },
                move |v: &[f64]| {
                    let (m, x) = model(&r, v);
                    let (value, (gm, gx), hh) = h(&m, x[0]);
                    let mut g = gm.to_flat();
                    g.push(gx);
                    (value, g, hh)
                },
            )
        };
        let (f, g, h) = scalar(
            measured_and_passed,
            measured_and_passed_grad,
            measured_and_passed_hessian,
        );
        check("measured_and_passed", &flat, f, g, h);
        // By hand: 3 x Σ w_k b_k + b_0.
        let (_, (gm, gx)) = measured_and_passed_grad(&p, x[0]);
        let s: f64 = p.w.iter().zip(&p.b).map(|(w, b)| w * b).sum();
        assert_close(gx, 3.0 * s, 1e-12, "measured_and_passed d/dx by hand");
        for k in 0..3 {
            assert_close(
                gm.w[k],
                3.0 * p.b[k] * x[0],
                1e-12,
                "measured_and_passed d/dw by hand",
            );
        }
        if (p.w[0].abs() * 3.0).fract() > 1e-3
            && (p.w[0].abs() * 3.0).fract() < 1.0 - 1e-3
            && p.w[1].abs() > 1e-3
            && p.w[0].abs() > 1e-3
        {
            let (f, g, h) = scalar(float_as_bound, float_as_bound_grad, float_as_bound_hessian);
            check("float_as_bound", &flat, f, g, h);
        }
        let (f, g, h) = scalar(flags_iter, flags_iter_grad, flags_iter_hessian);
        check("flags_iter", &flat, f, g, h);
        let (f, g, h) = scalar(float_eq, float_eq_grad, float_eq_hessian);
        check("float_eq", &flat, f, g, h);

        let mut flat = p.to_flat();
        flat.extend(&x);
        let (pc, qc, rc) = (p.clone(), p.clone(), p.clone());
        check(
            "closure_both",
            &flat,
            move |v| {
                let (m, x) = model(&pc, v);
                closure_both(&m, &x)
            },
            move |v| {
                let (m, x) = model(&qc, v);
                let (value, (gm, gx)) = closure_both_grad(&m, &x);
                let mut g = gm.to_flat();
                g.extend(gx);
                (value, g)
            },
            move |v| {
                let (m, x) = model(&rc, v);
                let (value, (gm, gx), hh) = closure_both_hessian(&m, &x);
                let mut g = gm.to_flat();
                g.extend(gx);
                (value, g, hh)
            },
        );
    }
}

#[test]
fn casts_to_plain_helpers_and_labeled_values() {
    let mut inputs = Inputs(2324);
    for _ in 0..POINTS {
        let x = inputs.vec(3).iter().map(|v| 2.0 * v).collect::<Vec<f64>>();
        if !apart(&x, &[0.0, 0.5, -0.5, 0.25, -0.25], 1e-3) {
            continue;
        }
        for n in [0usize, 3] {
            let one = |f: fn(f64, usize) -> f64,
                       g: fn(f64, usize) -> (f64, f64),
                       h: fn(f64, usize) -> (f64, f64, Vec<Vec<f64>>)| {
                (
                    move |x: &[f64]| f(x[0], n),
                    move |x: &[f64]| {
                        let (v, d) = g(x[0], n);
                        (v, vec![d])
                    },
                    move |x: &[f64]| {
                        let (v, d, hh) = h(x[0], n);
                        (v, vec![d], hh)
                    },
                )
            };
            let (f, g, h) = one(cast_helper, cast_helper_grad, cast_helper_hessian);
            check("cast_helper", &x[..1], f, g, h);
            assert_close(
                cast_helper_grad(x[0], n).1,
                4.0 * x[0] * n as f64,
                1e-12,
                "cast_helper by hand",
            );
            let (f, g, h) = one(c1, c1_grad, c1_hessian);
            check("c1", &x[..1], f, g, h);
            let (f, g, h) = one(c3, c3_grad, c3_hessian);
            check("c3", &x[..1], f, g, h);
            assert_close(c3_grad(x[0], n).1, n as f64 * 0.5, 1e-12, "c3 by hand");
            let (f, g, h) = one(d3, d3_grad, d3_hessian);
            check("d3", &x[..1], f, g, h);
            // d1 rounds x to f32: its derivative by hand at the rounded point.
            let (v1, g1) = d1_grad(x[0], n);
            assert_eq!(v1, d1(x[0], n));
            assert_close(g1, 2.0 * n as f64, 1e-6, "d1 by hand");
            let (_, hg, hh) = d1_hessian(x[0], n);
            assert_close(hg, 2.0 * n as f64, 1e-12, "d1's Hessian's gradient");
            assert_eq!(hh[0][0], 0.0, "d1's second derivative");
        }
        // A flag of the rounded value: the branch's derivative.
        let (v, g) = cast_helper_x_grad(x[0]);
        let (hv, hg, hh) = cast_helper_x_hessian(x[0]);
        let (eg, eh) = if (x[0] as f32) > 0.5 {
            (2.0 * x[0], 2.0)
        } else {
            (x[0].cos(), -x[0].sin())
        };
        assert_eq!(v, cast_helper_x(x[0]));
        assert_close(g, eg, 1e-12, "cast_helper_x d/dx by hand");
        assert_close(hv, v, 1e-12, "cast_helper_x: the Hessian's value");
        assert_close(hg, eg, 1e-12, "cast_helper_x: the Hessian's gradient");
        assert_close(hh[0][0], eh, 1e-12, "cast_helper_x d2/dx2 by hand");
        let (v, g) = d4_grad(x[0]);
        assert_eq!(v, d4(x[0]));
        let (_, hg, hh) = d4_hessian(x[0]);
        let (eg, eh) = if (x[0] as f32) * 2.0 > 1.0 {
            (2.0 * x[0], 2.0)
        } else {
            (-1.0, 0.0)
        };
        assert_close(g, eg, 1e-12, "d4 d/dx by hand");
        assert_close(hg, eg, 1e-12, "d4: the Hessian's gradient");
        assert_close(hh[0][0], eh, 1e-12, "d4 d2/dx2 by hand");

        check(
            "lab_tuple",
            &x,
            lab_tuple,
            lab_tuple_grad,
            lab_tuple_hessian,
        );
        check(
            "lab_array",
            &x,
            lab_array,
            lab_array_grad,
            lab_array_hessian,
        );
        check("lab_bool", &x, lab_bool, lab_bool_grad, lab_bool_hessian);
    }
}

#[test]
fn combinations() {
    let mut inputs = Inputs(2325);
    let mut mixed_checked = 0;
    for _ in 0..POINTS {
        let x = inputs.vec(4).iter().map(|v| 2.0 * v).collect::<Vec<f64>>();
        if !apart(&x, &[0.2], 1e-3) {
            continue;
        }
        check(
            "while_tuple",
            &x,
            while_tuple,
            while_tuple_grad,
            while_tuple_hessian,
        );
        for k in 0..4 {
            // The branches compare x[j] with the running sum s: skip points within a step of a tie (an exact
            // tie, s = x[0] after the first item, moves with x[0] and stays one).
            let ok = (0..x.len()).all(|i| {
                let prefix = mixed(&x[..i], k);
                x.iter().all(|v| *v == prefix || (v - prefix).abs() > 1e-3)
                    && (prefix - 1.0).abs() > 1e-3
            });
            if ok {
                check(
                    "mixed",
                    &x,
                    |x| mixed(x, k),
                    |x| mixed_grad(x, k),
                    |x| mixed_hessian(x, k),
                );
                mixed_checked += 1;
            }
        }
        let f = |v: &[f64]| {
            let mut out = v[2];
            out_place(v[0], v[1], &mut out)
        };
        let mut out = x[2];
        let (value, g) = out_place_grad(x[0], x[1], &mut out);
        assert_eq!(out, x[0] * x[1], "out_place writes its output");
        assert_eq!(value, f(&x[..3]));
        let g = format!("{g:?}");
        // b y with b = x + out: (y, x + out, y).
        let expected = format!("{:?}", (x[1], x[0] + x[2], x[1]));
        assert_eq!(g, expected, "out_place's gradient by hand");
    }
    assert!(
        mixed_checked > POINTS,
        "mixed checked at {mixed_checked} points only"
    );
}

#[test]
fn capital_bindings() {
    let mut inputs = Inputs(2326);
    for _ in 0..POINTS {
        let x = 2.0 * inputs.next();
        for k in 0..6usize {
            let n = k as f64;
            let (v, g) = capital_binding_grad(x, k);
            let (hv, hg, h) = capital_binding_hessian(x, k);
            assert_eq!(v, capital_binding(x, k));
            let (ev, eg, eh) = if k > 2 {
                (x * x * n, 2.0 * x * n, 2.0 * n)
            } else {
                (x, 1.0, 0.0)
            };
            let m = n + 1.0;
            assert_close(v, ev + 5.0 * m * x.sin(), 1e-12, "capital_binding by hand");
            assert_close(
                g,
                eg + 5.0 * m * x.cos(),
                1e-12,
                "capital_binding d/dx by hand",
            );
            assert_close(hv, v, 1e-12, "capital_binding: the Hessian's value");
            assert_close(hg, g, 1e-12, "capital_binding: the Hessian's gradient");
            assert_close(
                h[0][0],
                eh - 5.0 * m * x.sin(),
                1e-12,
                "capital_binding d2/dx2 by hand",
            );
            check(
                "capital_binding",
                &[x],
                |x| capital_binding(x[0], k),
                |x| {
                    (
                        capital_binding_grad(x[0], k).0,
                        vec![capital_binding_grad(x[0], k).1],
                    )
                },
                |x| {
                    let (v, g, h) = capital_binding_hessian(x[0], k);
                    (v, vec![g], h)
                },
            );

            let (v, g) = capital_unknown_grad(x, k);
            let (_, _, h) = capital_unknown_hessian(x, k);
            assert_eq!(v, capital_unknown(x, k));
            let (eg, eh) = if k > 2 {
                (2.0 * x * n, 2.0 * n)
            } else {
                (x.exp(), x.exp())
            };
            assert_close(g, eg, 1e-12, "capital_unknown d/dx by hand");
            assert_close(h[0][0], eh, 1e-12, "capital_unknown d2/dx2 by hand");
        }
    }
}
