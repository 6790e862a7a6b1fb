//! A slice local rebound in a loop to a slice of another length (ADBench's LSTM: `input =
//! &sequence[t * b + b..]`, the hidden state fed back as the next step's input): a view into its source,
//! which the generated items follow (`autodiff-macros/src/slice_views.rs`); before, a panic in them ("assigned
//! a `Vec` of another length to `input` in a loop"). Each function is `order = 2`, checked against analytic
//! derivatives where they are short to write, and always against central differences of the function
//! written without the macro (`twin!`) and of its `_grad` (the Hessian), at several seeded points.

#[macro_use]
mod common;

use autodiff::differentiable;
use common::probe::Lcg;
use common::{assert_all_close, assert_fd_gradient, assert_jacobian, fd_jacobian, ANALYTIC_TOL};

twin! {
    #[differentiable(order = 2)]
    fn chain / chain_plain(seq: &[f64], b: usize) -> f64 {
        let mut input = &seq[..b];
        let mut s = 0.0;
        for t in 0..3 {
            for v in input {
                s += v * v * (t as f64 + 1.0);
            }
            input = &seq[t * b + b..];
        }
        s
    }
}

/// The weight of each element of `seq` in `chain`: the views read at `t = 0, 1, 2` are `seq[..b]`,
/// `seq[b..]`, `seq[2b..]`, each of its squares times `t + 1`.
fn chain_weights(n: usize, b: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let mut c = 0.0;
            if i < b {
                c += 1.0;
            }
            if i >= b {
                c += 2.0;
            }
            if i >= 2 * b {
                c += 3.0;
            }
            c
        })
        .collect()
}

#[test]
fn rebound_to_a_sub_slice_of_another_length() {
    let mut lcg = Lcg::new(2701);
    for (n, b) in [(8, 2), (10, 3), (6, 1), (9, 3)] {
        let seq = lcg.vec(n, -2.0, 2.0);
        let c = chain_weights(n, b);
        let (v, g) = chain_grad(&seq, b);
        let by_hand: f64 = seq.iter().zip(&c).map(|(x, c)| c * x * x).sum();
        assert_all_close(
            &[v, chain(&seq, b)],
            &[by_hand, by_hand],
            ANALYTIC_TOL,
            "chain",
        );
        let dg: Vec<f64> = seq.iter().zip(&c).map(|(x, c)| 2.0 * c * x).collect();
        assert_all_close(&g, &dg, ANALYTIC_TOL, "chain: gradient");
        assert_fd_gradient(|x| chain_plain(x, b), &seq, &g, "chain");
        let (_, _, h) = chain_hessian(&seq, b);
        for i in 0..n {
            let row: Vec<f64> = (0..n)
                .map(|j| if i == j { 2.0 * c[i] } else { 0.0 })
                .collect();
            assert_all_close(&h[i], &row, ANALYTIC_TOL, "chain: Hessian");
        }
        assert_jacobian(
            &h,
            &fd_jacobian(|x| chain_grad(x, b).1, &seq),
            "chain: Hessian",
        );
    }
}

twin! {
    #[differentiable(order = 2)]
    fn two / two_plain(seq: &[f64], other: &[f64]) -> f64 {
        let mut input = &seq[1..];
        let mut s = 0.0;
        for t in 0..4 {
            for v in input {
                s += v * v * v * (t as f64 + 1.0);
            }
            if t % 2 == 0 {
                input = &other[t..];
            } else if t == 1 {
                input = other;
            } else {
                input = &seq[..t + 1];
            }
        }
        s + input[0] * input[input.len() - 1]
    }
}

#[test]
fn rebound_to_another_source() {
    let mut lcg = Lcg::new(2702);
    for (n, m) in [(5, 4), (4, 6), (6, 3)] {
        let seq = lcg.vec(n, -1.5, 1.5);
        let other = lcg.vec(m, -1.5, 1.5);
        // The views read at t = 0..3: seq[1..], other[0..], other, other[2..]; then seq[..4] at the end.
        let cs: Vec<f64> = (0..n).map(|k| if k >= 1 { 1.0 } else { 0.0 }).collect();
        let co: Vec<f64> = (0..m)
            .map(|k| 5.0 + if k >= 2 { 4.0 } else { 0.0 })
            .collect();
        let cube: f64 = seq
            .iter()
            .zip(&cs)
            .chain(other.iter().zip(&co))
            .map(|(x, c)| c * x * x * x)
            .sum();
        let by_hand = cube + seq[0] * seq[3];
        let (v, (gs, go)) = two_grad(&seq, &other);
        assert_all_close(
            &[v, two(&seq, &other)],
            &[by_hand, by_hand],
            ANALYTIC_TOL,
            "two",
        );
        let mut dgs: Vec<f64> = seq.iter().zip(&cs).map(|(x, c)| 3.0 * c * x * x).collect();
        let dgo: Vec<f64> = other
            .iter()
            .zip(&co)
            .map(|(x, c)| 3.0 * c * x * x)
            .collect();
        dgs[0] += seq[3];
        dgs[3] += seq[0];
        dgs.extend(dgo);
        let g: Vec<f64> = gs.iter().chain(&go).copied().collect();
        assert_all_close(&g, &dgs, ANALYTIC_TOL, "two: gradient");
        let flat: Vec<f64> = seq.iter().chain(&other).copied().collect();
        assert_fd_gradient(|p| two_plain(&p[..n], &p[n..]), &flat, &g, "two");
        let (_, _, h) = two_hessian(&seq, &other);
        let grad = |p: &[f64]| {
            let (_, (a, b)) = two_grad(&p[..n], &p[n..]);
            a.into_iter().chain(b).collect::<Vec<f64>>()
        };
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "two: Hessian");
        let diagonal: Vec<f64> = (0..n + m)
            .map(|i| {
                let c = if i < n { cs[i] } else { co[i - n] };
                6.0 * c * flat[i]
            })
            .collect();
        let h_diagonal: Vec<f64> = (0..n + m).map(|i| h[i][i]).collect();
        assert_all_close(
            &h_diagonal,
            &diagonal,
            ANALYTIC_TOL,
            "two: Hessian diagonal",
        );
        assert_all_close(
            &[h[0][3], h[3][0]],
            &[1.0, 1.0],
            ANALYTIC_TOL,
            "two: Hessian of seq[0] * seq[3]",
        );
    }
}

twin! {
    /// ADBench's LSTM in small: the hidden state fed back as the next step's input, whose length differs
    /// from the first input's.
    #[differentiable(order = 2)]
    fn recurrent / recurrent_plain(x: &[f64], w: &[f64]) -> f64 {
        let mut input = x;
        let mut h = vec![0.0; 2];
        for t in 0..3 {
            let mut next = vec![0.0; 2];
            for i in 0..2 {
                let mut a = w[i] + t as f64 * 0.1;
                for v in input {
                    a += w[i + 2] * v;
                }
                next[i] = a.tanh();
            }
            h = next;
            input = &h;
        }
        h[0] * h[1] + input[0]
    }
}

twin! {
    /// A `Vec` bound inside the loop, read through the local, which leaves it before the iteration ends.
    #[differentiable(order = 2)]
    fn inner / inner_plain(x: &[f64]) -> f64 {
        let mut input = &x[1..];
        let mut s = 0.0;
        for t in 0..3 {
            s += input[0] * input[input.len() - 1];
            let h = vec![s, x[t] * s];
            input = &h;
            s += input[1] * input[0];
            input = &x[t..];
        }
        s + input[0]
    }
}

twin! {
    /// A view shrunk relative to itself, by a `while` whose condition reads it.
    #[differentiable(order = 2)]
    fn shrink / shrink_plain(x: &[f64]) -> f64 {
        let mut input = x;
        let mut s = 0.0;
        while input.len() > 1 {
            s += input[0] * input[1];
            input = &input[1..];
        }
        s + input[0] * input[0]
    }
}

/// Checks a function of flat inputs: gradient against central differences of the plain function, Hessian
/// against central differences of the gradient.
#[track_caller]
fn check_flat(
    what: &str,
    plain: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: impl Fn(&[f64]) -> Vec<Vec<f64>>,
    x: &[f64],
) {
    let (v, g) = grad(x);
    assert_eq!(v, plain(x), "{what}: the value");
    assert_fd_gradient(&plain, x, &g, what);
    assert_jacobian(
        &hessian(x),
        &fd_jacobian(|p| grad(p).1, x),
        &format!("{what}: Hessian"),
    );
}

#[test]
fn rebound_to_a_local_vec() {
    let mut lcg = Lcg::new(2703);
    for n in [3, 1, 4] {
        let x = lcg.vec(n, -1.0, 1.0);
        let w = lcg.vec(4, -1.0, 1.0);
        let flat: Vec<f64> = x.iter().chain(&w).copied().collect();
        let split = |p: &[f64]| (p[..n].to_vec(), p[n..].to_vec());
        check_flat(
            "recurrent",
            |p| {
                let (x, w) = split(p);
                recurrent_plain(&x, &w)
            },
            |p| {
                let (x, w) = split(p);
                let (v, (gx, gw)) = recurrent_grad(&x, &w);
                (v, gx.into_iter().chain(gw).collect())
            },
            |p| {
                let (x, w) = split(p);
                recurrent_hessian(&x, &w).2
            },
            &flat,
        );
        assert_eq!(recurrent(&x, &w), recurrent_plain(&x, &w));
    }
}

#[test]
fn rebound_to_a_vec_bound_in_the_loop() {
    let mut lcg = Lcg::new(2704);
    for n in [4, 5, 7] {
        let x = lcg.vec(n, -1.0, 1.0);
        check_flat("inner", inner_plain, inner_grad, |p| inner_hessian(p).2, &x);
        assert_eq!(inner(&x), inner_plain(&x));
    }
}

#[test]
fn shrunk_relative_to_itself() {
    let mut lcg = Lcg::new(2705);
    for n in [1, 2, 5] {
        let x = lcg.vec(n, -1.5, 1.5);
        let (v, g) = shrink_grad(&x);
        let by_hand = (0..n - 1).map(|i| x[i] * x[i + 1]).sum::<f64>() + x[n - 1] * x[n - 1];
        assert_all_close(&[v], &[by_hand], ANALYTIC_TOL, "shrink");
        let mut dg = vec![0.0; n];
        for i in 0..n - 1 {
            dg[i] += x[i + 1];
            dg[i + 1] += x[i];
        }
        dg[n - 1] += 2.0 * x[n - 1];
        assert_all_close(&g, &dg, ANALYTIC_TOL, "shrink: gradient");
        let (_, _, h) = shrink_hessian(&x);
        for (i, row) in h.iter().enumerate() {
            let by_hand: Vec<f64> = (0..n)
                .map(|j| {
                    let neighbours = if i.abs_diff(j) == 1 { 1.0 } else { 0.0 };
                    neighbours + if i == j && i == n - 1 { 2.0 } else { 0.0 }
                })
                .collect();
            assert_all_close(row, &by_hand, ANALYTIC_TOL, "shrink: Hessian");
        }
        assert_eq!(shrink(&x), shrink_plain(&x));
        check_flat(
            "shrink",
            shrink_plain,
            shrink_grad,
            |p| shrink_hessian(p).2,
            &x,
        );
    }
}

twin! {
    /// ADBench's LSTM objective's loop in small: the local rebound to a sub-slice bound in the loop, of
    /// another length than the first (the original's `&sequence[t + b..]`).
    #[differentiable(order = 2)]
    fn objective / objective_plain(sequence: &[f64], w: &[f64], b: usize) -> f64 {
        let mut input = &sequence[..b];
        let mut total = 0.0;
        for j in 0..3 {
            let t = j * b;
            let mut pred = 0.0;
            for (k, v) in input.iter().enumerate() {
                pred += (w[k % w.len()] * v).sin();
            }
            let ygold = &sequence[t + b..];
            total += pred * ygold[0] + ygold[ygold.len() - 1];
            input = ygold;
        }
        total
    }
}

#[test]
fn rebound_to_a_sub_slice_bound_in_the_loop() {
    let mut lcg = Lcg::new(2706);
    for (n, b) in [(8, 2), (10, 3), (5, 1)] {
        let x = lcg.vec(n, -1.0, 1.0);
        let w = lcg.vec(3, -1.0, 1.0);
        let flat: Vec<f64> = x.iter().chain(&w).copied().collect();
        let split = |p: &[f64]| (p[..n].to_vec(), p[n..].to_vec());
        check_flat(
            "objective",
            |p| {
                let (x, w) = split(p);
                objective_plain(&x, &w, b)
            },
            |p| {
                let (x, w) = split(p);
                let (v, (gx, gw)) = objective_grad(&x, &w, b);
                (v, gx.into_iter().chain(gw).collect())
            },
            |p| {
                let (x, w) = split(p);
                objective_hessian(&x, &w, b).2
            },
            &flat,
        );
        assert_eq!(objective(&x, &w, b), objective_plain(&x, &w, b));
    }
}

/// Generic over the float type, rebound to two sources: the view of an unknown source starts from zeros of `T`.
#[differentiable(order = 2)]
fn generic_two<T: autodiff::Float>(seq: &[T], other: &[T]) -> T {
    let mut input = seq;
    let mut s = T::zero();
    for t in 0..3 {
        for v in input {
            s = s + *v * *v;
        }
        if t == 0 {
            input = &other[1..];
        } else {
            input = &seq[t..];
        }
    }
    s
}

#[test]
fn generic_rebound_to_two_sources() {
    let mut lcg = Lcg::new(2708);
    for (n, m) in [(4, 3), (3, 5)] {
        let seq = lcg.vec(n, -1.0, 1.0);
        let other = lcg.vec(m, -1.0, 1.0);
        // The views: seq, other[1..], seq[1..].
        let by_hand: f64 = seq.iter().map(|x| x * x).sum::<f64>()
            + other[1..].iter().map(|x| x * x).sum::<f64>()
            + seq[1..].iter().map(|x| x * x).sum::<f64>();
        let (v, (gs, go)) = generic_two_grad(&seq, &other);
        assert_all_close(&[v], &[by_hand], ANALYTIC_TOL, "generic_two");
        let dgs: Vec<f64> = (0..n)
            .map(|i| if i >= 1 { 4.0 } else { 2.0 } * seq[i])
            .collect();
        let dgo: Vec<f64> = (0..m)
            .map(|i| if i >= 1 { 2.0 * other[i] } else { 0.0 })
            .collect();
        assert_all_close(&gs, &dgs, ANALYTIC_TOL, "generic_two: d/dseq");
        assert_all_close(&go, &dgo, ANALYTIC_TOL, "generic_two: d/dother");
        let flat: Vec<f64> = seq.iter().chain(&other).copied().collect();
        let g: Vec<f64> = gs.iter().chain(&go).copied().collect();
        assert_fd_gradient(|p| generic_two(&p[..n], &p[n..]), &flat, &g, "generic_two");
        let (_, _, h) = generic_two_hessian(&seq, &other);
        let diagonal: Vec<f64> = (0..n + m)
            .map(|i| match i {
                0 => 2.0,
                i if i < n => 4.0,
                i if i == n => 0.0,
                _ => 2.0,
            })
            .collect();
        let h_diagonal: Vec<f64> = (0..n + m).map(|i| h[i][i]).collect();
        assert_all_close(&h_diagonal, &diagonal, ANALYTIC_TOL, "generic_two: Hessian");
        assert_jacobian(
            &h,
            &fd_jacobian(
                |p| {
                    let (_, (a, b)) = generic_two_grad(&p[..n], &p[n..]);
                    a.into_iter().chain(b).collect()
                },
                &flat,
            ),
            "generic_two: Hessian",
        );
        let seq32: Vec<f32> = seq.iter().map(|&x| x as f32).collect();
        let other32: Vec<f32> = other.iter().map(|&x| x as f32).collect();
        let (v32, _) = generic_two_grad(&seq32, &other32);
        assert_all_close(&[v32 as f64], &[by_hand], 1e-5, "generic_two: f32");
    }
}

// ---- a constant tuple by reference and a float literal, passed to a plain function at `order = 2` ----

fn weigh(w: &((f64, f64), f64), a: f64) -> f64 {
    (w.0 .0 * a + w.0 .1) * w.1
}

/// The float literal made the call go through `<weigh as GenericCopy>` in the generic copy (E0573: a
/// plain function has none); the call is a plain one, the tuple kept in `weigh`'s float type.
#[differentiable(order = 2)]
fn weighed(x: f64, y: f64) -> f64 {
    let w = ((0.5, -1.25), 2.0);
    x * y * weigh(&w, 3.0)
}

/// Twice, at two literals, one result bound first.
#[differentiable(order = 2)]
fn weighed_twice(x: f64, y: f64) -> f64 {
    let w = ((0.5, -1.25), 2.0);
    let a = weigh(&w, 3.0);
    x * y * a + weigh(&w, 1.5) * x.sin()
}

#[test]
fn constant_tuple_by_reference_beside_a_float_literal() {
    use common::central_difference;
    // weigh(&w, 3.0) = (1.5 - 1.25) * 2 = 0.5, weigh(&w, 1.5) = (0.75 - 1.25) * 2 = -1.
    let mut lcg = Lcg::new(2707);
    for _ in 0..8 {
        let (x, y) = (lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0));
        let (v, (gx, gy), h) = weighed_hessian(x, y);
        assert_all_close(
            &[v, gx, gy],
            &[0.5 * x * y, 0.5 * y, 0.5 * x],
            ANALYTIC_TOL,
            "weighed",
        );
        assert_all_close(
            &h.concat(),
            &[0.0, 0.5, 0.5, 0.0],
            ANALYTIC_TOL,
            "weighed: Hessian",
        );
        assert_all_close(
            &[weighed(x, y)],
            &[0.5 * x * y],
            ANALYTIC_TOL,
            "weighed: the value",
        );
        let fd = [
            central_difference(|x| weighed(x, y), x),
            central_difference(|y| weighed(x, y), y),
        ];
        assert_all_close(&[gx, gy], &fd, 1e-8, "weighed: differences");

        let (v, (gx, gy), h) = weighed_twice_hessian(x, y);
        let by_hand = 0.5 * x * y - x.sin();
        assert_all_close(
            &[v, weighed_twice(x, y)],
            &[by_hand, by_hand],
            ANALYTIC_TOL,
            "weighed_twice",
        );
        assert_all_close(
            &[gx, gy],
            &[0.5 * y - x.cos(), 0.5 * x],
            ANALYTIC_TOL,
            "weighed_twice: gradient",
        );
        let hessian = [x.sin(), 0.5, 0.5, 0.0];
        assert_all_close(
            &h.concat(),
            &hessian,
            ANALYTIC_TOL,
            "weighed_twice: Hessian",
        );
        let gxs = |x: f64| weighed_twice_grad(x, y).1 .0;
        assert_all_close(
            &[h[0][0]],
            &[central_difference(gxs, x)],
            1e-6,
            "weighed_twice: differences",
        );
    }
}
