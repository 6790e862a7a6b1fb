//! An output parameter's incoming value is an input only if the body reads it before writing it (API.md,
//! "Output parameters"): `G` holds the output only then. Both directions, each against central differences:
//! outputs read only after the body wrote them (a prefix scan reading `out[i - 1]`, `out[i]` read back in
//! the iteration that wrote it, a fixed array or a float written element by element, a forward substitution)
//! have API.md's signatures, pinned by `fn` pointers of those types, and buffers full of NaN going in, which
//! any use of the incoming value would show; outputs whose incoming value is read (an element before the
//! loop's first write, a write that a branch may skip, the next element, a read in a branch before the
//! write, an index that changed) keep it in `G`, and its gradient is checked against central differences in
//! the incoming value.

// The generated signatures spelled out as `fn` types.
#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::differentiable;
use common::probe::*;

const POINTS: usize = 6;

// ---- Read only after written: no input ----

/// The prefix sum: `out[i - 1]` was written before the loop (`i = 1`) or by the iteration before.
#[differentiable]
fn cumsum(x: &[f64], out: &mut [f64]) {
    out[0] = x[0];
    for i in 1..x.len() {
        out[i] = out[i - 1] + x[i];
    }
}

/// Two elements before the loop, each iteration reading two back, then the whole buffer (written whole
/// by then: `out[0]`, `out[1]` and the loop over the rest of `0..out.len()`).
#[differentiable(order = 2)]
fn recurrence(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] = x[0];
    out[1] = x[1] * x[0];
    for i in 2..out.len() {
        out[i] = out[i - 1].sin() * x[i] + 0.5 * out[i - 2];
    }
    let total: f64 = out.iter().map(|v| v * v).sum();
    total
}

/// Each element read back, updated and read again in the iteration that wrote it.
#[differentiable(order = 2)]
fn rescaled(x: &[f64], out: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        out[i] = x[i].sin();
        out[i] *= 2.0;
        out[i] += x[i] * out[i];
        s += out[i] * out[i];
    }
    s
}

/// A fixed array written element by element (whole after `out[1]`), then read.
#[differentiable(order = 2)]
fn pair(x: f64, out: &mut [f64; 2]) -> f64 {
    out[0] = x.sin();
    out[1] = out[0] * x;
    out[0] * out[1] + x
}

/// A float output written, then updated and read.
#[differentiable(order = 2)]
fn energy(x: &[f64], e: &mut f64) -> f64 {
    *e = x[0] * x[1];
    *e *= 2.0;
    *e += x[0];
    *e * x[1]
}

/// Forward substitution, `L out = b` for a unit lower-triangular `L` (row-major `n x n`): the inner loop
/// reads `out[j]` for `j < i`, each written by an earlier iteration.
#[differentiable]
fn forward_sub(n: usize, l: &[f64], b: &[f64], out: &mut [f64]) {
    for i in 0..n {
        let mut t = b[i];
        for j in 0..i {
            t -= l[i * n + j] * out[j];
        }
        out[i] = t;
    }
}

/// Exponential smoothing, a method: `out[i - 1]` as in `cumsum`.
struct Decay {
    rate: f64,
}

impl Decay {
    #[differentiable]
    fn smooth(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[0];
        for i in 1..x.len() {
            out[i] = self.rate * out[i - 1] + (1.0 - self.rate) * x[i];
        }
    }
}

impl Decay {
    /// The smoothing's energy at `order = 2`, the buffer read back whole after the scan: `G` is `x`'s alone.
    #[differentiable(order = 2)]
    fn energy(&self, x: &[f64], out: &mut [f64]) -> f64 {
        out[0] = x[0];
        for i in 1..out.len() {
            out[i] = self.rate * out[i - 1] + (1.0 - self.rate) * x[i] * x[i];
        }
        let total: f64 = out.iter().map(|v| v * v).sum();
        total
    }
}

// ---- Read before written: an input ----

/// The scan without `out[0]` written first: the first iteration reads its incoming value.
#[differentiable]
fn scan_onto(x: &[f64], out: &mut [f64]) {
    for i in 1..x.len() {
        out[i] = out[i - 1] * x[i] + x[i];
    }
}

/// The write in each iteration is conditional, so `out[i - 1]` may be the incoming value.
#[differentiable(order = 2)]
fn gated(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] = x[0];
    let mut s = 0.0;
    for i in 1..x.len() {
        if x[i] > 0.0 {
            out[i] = x[i] * x[i];
        }
        s += out[i - 1] * x[i];
    }
    s
}

/// Reads the next element before the next iteration writes it.
#[differentiable]
fn ahead(x: &[f64], out: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        out[i] = x[i];
        s += out[i + 1] * x[i];
    }
    s
}

/// A read in a branch before the write.
#[differentiable]
fn peeked(x: f64, flag: bool, out: &mut [f64; 2]) -> f64 {
    let mut s = x;
    if flag {
        s += out[0] * x;
    }
    out[0] = x * x;
    out[1] = out[0] + s;
    s
}

/// The index moves between the write and the read: `out[1]` is the incoming value.
#[differentiable]
fn shifted(x: &[f64], out: &mut [f64]) -> f64 {
    let mut k = 0;
    out[k] = x[0];
    k += 1;
    out[k] * x[1]
}

/// Forward substitution whose inner loop reaches the iteration's own element (`0..=i`), not yet written.
#[differentiable]
fn forward_sub_own(n: usize, l: &[f64], b: &[f64], out: &mut [f64]) {
    for i in 0..n {
        let mut t = b[i];
        for j in 0..=i {
            t -= l[i * n + j] * out[j];
        }
        out[i] = t;
    }
}

// ---- Signatures ----

#[test]
fn outputs_read_only_after_written_have_the_api_signatures() {
    // `G` covers the inputs alone: the compile-time pins.
    let _: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64> = cumsum_vjp;
    let _: fn(&[f64], &mut [f64], Vec<f64>, &mut [f64]) = cumsum_jvp;
    let _: fn(&[f64], &mut [f64]) -> Vec<Vec<f64>> = cumsum_jacobian;
    let _: fn(&[f64], &mut [f64]) -> (f64, Vec<f64>) = recurrence_grad;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>) = recurrence_vjp;
    let _: fn(&[f64], &mut [f64], Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = recurrence_hvp;
    let _: fn(&[f64], &mut [f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = rescaled_hessian;
    let _: fn(&[f64], &mut [f64], &mut [f64]) -> f64 = rescaled_grad_into;
    let _: fn(f64, &mut [f64; 2]) -> (f64, f64) = pair_grad;
    let _: fn(f64, &mut [f64; 2], f64, &[f64; 2]) -> (f64, f64) = pair_vjp;
    let _: fn(f64, &mut [f64; 2]) -> [f64; 3] = pair_derivatives;
    let _: fn(&[f64], &mut f64) -> (f64, Vec<f64>) = energy_grad;
    let _: fn(&[f64], &mut f64, f64, f64) -> (f64, Vec<f64>) = energy_vjp;
    // A float output's tangent buffer is `impl FloatTangentBuffer<f64>` (`&mut f64` or a slice of one),
    // so `energy_jvp` is generic over it: a fn pointer is of one instance, through a closure.
    let _: fn(&[f64], &mut f64, Vec<f64>, &mut f64) -> (f64, f64) =
        |x, e, t, d| energy_jvp(x, e, t, d);
    let _: fn(usize, &[f64], &[f64], &mut [f64], &[f64]) -> (Vec<f64>, Vec<f64>) = forward_sub_vjp;
    let _: fn(&Decay, &[f64], &mut [f64], &[f64]) -> Vec<f64> = Decay::smooth_vjp;
    let _: fn(&Decay, &[f64], &mut [f64]) -> (f64, Vec<f64>) = Decay::energy_grad;
    let _: fn(&Decay, &[f64], &mut [f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = Decay::energy_hessian;
}

#[test]
fn outputs_read_before_written_keep_their_gradient() {
    let _: fn(&[f64], &mut [f64], &[f64]) -> (Vec<f64>, Vec<f64>) = scan_onto_vjp;
    let _: fn(&[f64], &mut [f64]) -> (f64, (Vec<f64>, Vec<f64>)) = gated_grad;
    let _: fn(&[f64], &mut [f64]) -> (f64, (Vec<f64>, Vec<f64>), Vec<Vec<f64>>) = gated_hessian;
    let _: fn(&[f64], &mut [f64]) -> (f64, (Vec<f64>, Vec<f64>)) = ahead_grad;
    let _: fn(f64, bool, &mut [f64; 2]) -> (f64, (f64, [f64; 2])) = peeked_grad;
    let _: fn(&[f64], &mut [f64]) -> (f64, (Vec<f64>, Vec<f64>)) = shifted_grad;
    type Three = (Vec<f64>, Vec<f64>, Vec<f64>);
    let _: fn(usize, &[f64], &[f64], &mut [f64], &[f64]) -> Three = forward_sub_own_vjp;
}

// ---- Gradients, not read: buffers of NaN going in ----

fn nan(n: usize) -> Vec<f64> {
    vec![GARBAGE; n]
}

#[test]
fn cumsum_against_differences_and_the_formula() {
    let n = 5;
    check_vector(
        "cumsum",
        POINTS,
        range(n, -2.0, 2.0),
        &|x| {
            let mut out = nan(n);
            cumsum(x, &mut out);
            out
        },
        &|x, c| {
            let mut out = nan(n);
            let g = cumsum_vjp(x, &mut out, c);
            // d/dx_j of c . out = the sum of c_i for i >= j.
            let by_hand: Vec<f64> = (0..n).map(|j| c[j..].iter().sum()).collect();
            assert_vec_near(&g, &by_hand, 1e-12, "cumsum_vjp against the formula");
            (out, g)
        },
        &|x, t| {
            let mut out = nan(n);
            let mut d = nan(n);
            cumsum_jvp(x, &mut out, t.to_vec(), &mut d);
            (out, d)
        },
        Some(&|x| cumsum_jacobian(x, &mut nan(n))),
    );
}

#[test]
fn method_scan_against_differences() {
    let decay = Decay { rate: 0.3 };
    let n = 4;
    check_vector(
        "smooth",
        POINTS,
        range(n, -2.0, 2.0),
        &|x| {
            let mut out = nan(n);
            decay.smooth(x, &mut out);
            out
        },
        &|x, c| {
            let mut out = nan(n);
            let g = decay.smooth_vjp(x, &mut out, c);
            (out, g)
        },
        &|x, t| {
            let mut out = nan(n);
            let mut d = nan(n);
            decay.smooth_jvp(x, &mut out, t.to_vec(), &mut d);
            (out, d)
        },
        None,
    );
}

#[test]
fn method_at_second_order_against_differences() {
    let decay = Decay { rate: 0.6 };
    let n = 4;
    Probe::new("Decay::energy", |x| decay.energy(x, &mut nan(n)))
        .grad(|x| decay.energy_grad(x, &mut nan(n)))
        .jvp(|x, t| decay.energy_jvp(x, &mut nan(n), t.to_vec(), &mut nan(n)))
        .grad_into(|x| {
            let mut g = nan(n);
            let v = decay.energy_grad_into(x, &mut nan(n), &mut g);
            (v, g)
        })
        .hessian(|x| decay.energy_hessian(x, &mut nan(n)))
        .run(POINTS, range(n, -1.5, 1.5));
}

#[test]
fn forward_substitution_against_differences() {
    let n = 4;
    let (l, b) = (0..n * n, n * n..n * n + n);
    check_vector(
        "forward_sub",
        POINTS,
        range(n * n + n, -1.0, 1.0),
        &|x| {
            let mut out = nan(n);
            forward_sub(n, &x[l.clone()], &x[b.clone()], &mut out);
            out
        },
        &|x, c| {
            let mut out = nan(n);
            let (dl, db) = forward_sub_vjp(n, &x[l.clone()], &x[b.clone()], &mut out, c);
            (out, [dl, db].concat())
        },
        &|x, t| {
            let mut out = nan(n);
            let mut d = nan(n);
            let tangent = (t[l.clone()].to_vec(), t[b.clone()].to_vec());
            forward_sub_jvp(n, &x[l.clone()], &x[b.clone()], &mut out, tangent, &mut d);
            (out, d)
        },
        Some(&|x| forward_sub_jacobian(n, &x[l.clone()], &x[b.clone()], &mut nan(n))),
    );
}

/// A function of a slice with one output buffer that it does not read, returning a float: its items
/// through the probe, each call with a buffer of NaN.
macro_rules! probe_slice_with_buffer {
    ($name:literal, $f:ident, $grad:ident, $jvp:ident, $into:ident, $hessian:ident, $n:expr) => {
        Probe::new($name, |x| $f(x, &mut nan($n)))
            .grad(|x| $grad(x, &mut nan($n)))
            .jvp(|x, t| $jvp(x, &mut nan($n), t.to_vec(), &mut nan($n)))
            .grad_into(|x| {
                let mut g = nan(x.len());
                let v = $into(x, &mut nan($n), &mut g);
                (v, g)
            })
            .hessian(|x| $hessian(x, &mut nan($n)))
    };
}

#[test]
fn recurrence_against_differences() {
    probe_slice_with_buffer!(
        "recurrence",
        recurrence,
        recurrence_grad,
        recurrence_jvp,
        recurrence_grad_into,
        recurrence_hessian,
        5
    )
    .run(POINTS, range(5, -1.5, 1.5));
    // The buffer ends as the function leaves it.
    let x = [0.3, -0.7, 1.1, 0.4, -0.2];
    let (mut a, mut b) = (nan(5), nan(5));
    recurrence(&x, &mut a);
    recurrence_hessian(&x, &mut b);
    assert_vec_near(&b, &a, 1e-15, "recurrence_hessian's buffer");
}

#[test]
fn rescaled_against_differences_and_the_formula() {
    // out_i = 2 sin x_i (1 + x_i), s = Σ out_i².
    probe_slice_with_buffer!(
        "rescaled",
        rescaled,
        rescaled_grad,
        rescaled_jvp,
        rescaled_grad_into,
        rescaled_hessian,
        4
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| {
                let o = 2.0 * v.sin() * (1.0 + v);
                2.0 * o * 2.0 * (v.cos() * (1.0 + v) + v.sin())
            })
            .collect()
    })
    .run(POINTS, range(4, -2.0, 2.0));
}

#[test]
fn pair_against_differences_and_the_formula() {
    // f = sin x · x sin x + x = x sin² x + x.
    let mut buffer = [GARBAGE; 2];
    Probe::new("pair", |x| pair(x[0], &mut [GARBAGE; 2]))
        .grad(|x| {
            let (v, d) = pair_grad(x[0], &mut [GARBAGE; 2]);
            (v, vec![d])
        })
        .jvp(|x, t| pair_jvp(x[0], &mut [GARBAGE; 2], t[0], &mut [GARBAGE; 2]))
        .grad_into(|x| {
            let mut d = GARBAGE;
            let v = pair_grad_into(x[0], &mut [GARBAGE; 2], &mut d);
            (v, vec![d])
        })
        .hessian(|x| {
            let (v, g, h) = pair_hessian(x[0], &mut [GARBAGE; 2]);
            let ds = pair_derivatives(x[0], &mut [GARBAGE; 2]);
            assert_near(
                ds[2],
                h[0][0],
                1e-10,
                1.0,
                "pair_derivatives against pair_hessian",
            );
            (v, vec![g], h)
        })
        .analytic(|x| {
            let (s, c) = x[0].sin_cos();
            vec![s * s + 2.0 * x[0] * s * c + 1.0]
        })
        .run(POINTS, range(1, -2.0, 2.0));
    pair(0.5, &mut buffer);
    assert_vec_near(
        &buffer,
        &[0.5f64.sin(), 0.5 * 0.5f64.sin()],
        1e-15,
        "pair's buffer",
    );
}

#[test]
fn energy_against_differences_and_the_formula() {
    // e = 2 x0 x1 + x0, f = e x1.
    Probe::new("energy", |x| energy(x, &mut nan(1)[0]))
        .grad(|x| energy_grad(x, &mut nan(1)[0]))
        .jvp(|x, t| energy_jvp(x, &mut nan(1)[0], t.to_vec(), &mut nan(1)[0]))
        .grad_into(|x| {
            let mut g = nan(2);
            let v = energy_grad_into(x, &mut nan(1)[0], &mut g);
            (v, g)
        })
        .hessian(|x| energy_hessian(x, &mut nan(1)[0]))
        .analytic(|x| {
            vec![
                (2.0 * x[1] + 1.0) * x[1],
                2.0 * x[0] * x[1] + (2.0 * x[0] * x[1] + x[0]),
            ]
        })
        .run(POINTS, range(2, -2.0, 2.0));
    // The vjp in the output's cotangent too: d(e)/dx = (2 x1 + 1, 2 x0).
    let x = [0.4, -1.3];
    let mut e = GARBAGE;
    let (v, g) = energy_vjp(&x, &mut e, 0.0, 1.0);
    assert_near(
        e,
        2.0 * x[0] * x[1] + x[0],
        1e-15,
        0.0,
        "energy_vjp's output",
    );
    assert_near(v, e * x[1], 1e-15, 0.0, "energy_vjp's value");
    assert_vec_near(
        &g,
        &[2.0 * x[1] + 1.0, 2.0 * x[0]],
        1e-12,
        "energy_vjp in e",
    );
}

// ---- Gradients, read: the incoming value's gradient against central differences ----

#[test]
fn scan_onto_incoming_value_against_differences() {
    let n = 4;
    // The flat input: x, then the buffer's incoming value.
    check_vector(
        "scan_onto",
        POINTS,
        range(2 * n, -1.5, 1.5),
        &|x| {
            let mut out = x[n..].to_vec();
            scan_onto(&x[..n], &mut out);
            out
        },
        &|x, c| {
            let mut out = x[n..].to_vec();
            let (gx, gout) = scan_onto_vjp(&x[..n], &mut out, c);
            (out, [gx, gout].concat())
        },
        &|x, t| {
            let mut out = x[n..].to_vec();
            let mut d = nan(n);
            scan_onto_jvp(
                &x[..n],
                &mut out,
                (t[..n].to_vec(), t[n..].to_vec()),
                &mut d,
            );
            (out, d)
        },
        Some(&|x| scan_onto_jacobian(&x[..n], &mut x[n..].to_vec())),
    );
}

/// Floats in `[lo, hi]` with random signs: away from the branch at 0.
fn signed(n: usize, lo: f64, hi: f64) -> impl Fn(&mut Lcg) -> Flat {
    move |r| {
        (0..n)
            .map(|_| {
                let m = r.uniform(lo, hi);
                if r.unit() < 0.5 {
                    -m
                } else {
                    m
                }
            })
            .collect()
    }
}

/// A function of a slice and one output buffer whose incoming value it reads, returning a float: through
/// the flat view `x ++ incoming`.
macro_rules! probe_read_buffer {
    ($name:literal, $f:ident, $grad:ident, $jvp:ident, $into:ident, $n:expr) => {
        Probe::new($name, |x| $f(&x[..$n], &mut x[$n..].to_vec()))
            .grad(|x| {
                let (v, (gx, gout)) = $grad(&x[..$n], &mut x[$n..].to_vec());
                (v, [gx, gout].concat())
            })
            .jvp(|x, t| {
                let tangent = (t[..$n].to_vec(), t[$n..].to_vec());
                $jvp(
                    &x[..$n],
                    &mut x[$n..].to_vec(),
                    tangent,
                    &mut nan(x.len() - $n),
                )
            })
            .grad_into(|x| {
                let (mut gx, mut gout) = (nan($n), nan(x.len() - $n));
                let v = $into(&x[..$n], &mut x[$n..].to_vec(), (&mut gx, &mut gout));
                (v, [gx, gout].concat())
            })
    };
}

#[test]
fn gated_incoming_value_against_differences() {
    let n = 4;
    probe_read_buffer!("gated", gated, gated_grad, gated_jvp, gated_grad_into, 4)
        .hessian(|x| {
            let (v, (gx, gout), h) = gated_hessian(&x[..n], &mut x[n..].to_vec());
            (v, [gx, gout].concat(), h)
        })
        .run(POINTS, signed(2 * n, 0.3, 1.5));
    // Where every write is skipped, s = x0 x1 + Σ_{i≥2} incoming_{i-1} x_i.
    let x = [0.5, -1.0, -2.0, -0.5];
    let (_, (_, gout)) = gated_grad(&x, &mut [1.0; 4]);
    assert_vec_near(
        &gout,
        &[0.0, -2.0, -0.5, 0.0],
        1e-15,
        "gated_grad in the buffer",
    );
}

#[test]
fn ahead_incoming_value_against_differences() {
    let n = 4;
    // The buffer one longer than `x`: `out[i + 1]` for `i < n - 1` reads incoming `out[1..n]`.
    probe_read_buffer!("ahead", ahead, ahead_grad, ahead_jvp, ahead_grad_into, 4)
        .analytic(|x| {
            let mut g = vec![0.0; 2 * n];
            for i in 0..n - 1 {
                g[i] = x[n + i + 1];
                g[n + i + 1] = x[i];
            }
            g
        })
        .run(POINTS, range(2 * n, -1.5, 1.5));
}

#[test]
fn peeked_incoming_value_against_differences() {
    for flag in [true, false] {
        let name = if flag { "peeked" } else { "peeked, not taken" };
        Probe::new(name, |x| peeked(x[0], flag, &mut [x[1], x[2]]))
            .grad(|x| {
                let (v, (gx, gout)) = peeked_grad(x[0], flag, &mut [x[1], x[2]]);
                (v, vec![gx, gout[0], gout[1]])
            })
            .jvp(|x, t| {
                let mut d = [GARBAGE; 2];
                peeked_jvp(x[0], flag, &mut [x[1], x[2]], (t[0], [t[1], t[2]]), &mut d)
            })
            .analytic(|x| match flag {
                true => vec![1.0 + x[1], x[0], 0.0],
                false => vec![1.0, 0.0, 0.0],
            })
            .run(POINTS, range(3, -1.5, 1.5));
    }
}

#[test]
fn shifted_incoming_value_against_differences() {
    let n = 2;
    probe_read_buffer!(
        "shifted",
        shifted,
        shifted_grad,
        shifted_jvp,
        shifted_grad_into,
        2
    )
    .analytic(|x| vec![0.0, x[n + 1], 0.0, x[1]])
    .run(POINTS, range(2 * n, -1.5, 1.5));
}

#[test]
fn forward_substitution_reaching_its_own_element_against_differences() {
    let n = 3;
    let (l, b, o) = (0..n * n, n * n..n * n + n, n * n + n..n * n + 2 * n);
    check_vector(
        "forward_sub_own",
        POINTS,
        range(n * n + 2 * n, -1.0, 1.0),
        &|x| {
            let mut out = x[o.clone()].to_vec();
            forward_sub_own(n, &x[l.clone()], &x[b.clone()], &mut out);
            out
        },
        &|x, c| {
            let mut out = x[o.clone()].to_vec();
            let (dl, db, dout) = forward_sub_own_vjp(n, &x[l.clone()], &x[b.clone()], &mut out, c);
            (out, [dl, db, dout].concat())
        },
        &|x, t| {
            let mut out = x[o.clone()].to_vec();
            let mut d = nan(n);
            let tangent = (
                t[l.clone()].to_vec(),
                t[b.clone()].to_vec(),
                t[o.clone()].to_vec(),
            );
            forward_sub_own_jvp(n, &x[l.clone()], &x[b.clone()], &mut out, tangent, &mut d);
            (out, d)
        },
        None,
    );
}
