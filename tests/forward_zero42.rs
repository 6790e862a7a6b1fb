//! Forward mode at slopes that are infinite where the value is finite: a callee's parameter that its
//! caller passes as a constant has the tangent 0 in the callee's `_jvp` (JAX's symbolic zero), and a zero
//! tangent times an infinite slope is 0, not `0 · inf = NaN` (`docs/conventions.md`). trial42 found it for
//! `x / y` and `exp`; here the logarithms at 0, `recip` and a negative `powi` at 0, `sinh` and `cosh` where
//! they overflow. Each `f_jvp` is checked against `f_grad` along the tangent, and `f_grad` against central
//! differences of the value, at seeded points.

mod common;

use autodiff::differentiable;
use common::{assert_fd_gradient, points};

/// `a` times a factor that is 0 at the constant `c` the callers pass, through a slope that is infinite
/// there: `exp(ln c)`, `exp2(log2 c)`, `exp(log10 c)`, `exp(ln_1p c)`, `1 / (1 / c)`, `1 / c^-2`,
/// `exp(-sinh c)`, `exp(-cosh c)`; plus `b`, so the value and gradient are not all zero.
#[differentiable]
fn vanishing(a: f64, b: f64, c: f64, kind: usize) -> f64 {
    let factor = match kind {
        0 => c.ln().exp(),
        1 => c.log2().exp2(),
        2 => c.log10().exp(),
        3 => c.ln_1p().exp(),
        4 => c.recip().recip(),
        5 => c.powi(-2).recip(),
        6 => (-c.sinh()).exp(),
        _ => (-c.cosh()).exp(),
    };
    a * factor + b * b
}

/// The constants at which each kind's slope is infinite.
const SINGULAR: [f64; 8] = [0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1000.0, 1000.0];

#[differentiable]
fn caller(a: f64, b: f64, kind: usize) -> f64 {
    let c = match kind {
        3 => -1.0,
        6 | 7 => 1000.0,
        _ => 0.0,
    };
    vanishing(a, b, c, kind) * a + b
}

#[test]
fn a_constant_at_an_infinite_slope_gives_a_zero_tangent() {
    for (kind, &c) in SINGULAR.iter().enumerate() {
        assert_eq!(
            caller(0.5, 0.25, kind),
            vanishing(0.5, 0.25, c, kind) * 0.5 + 0.25
        );
        for p in points(42_201 + kind as u64, 4, 10, -2.0, 2.0) {
            let (a, b) = (p[0], p[1]);
            let (value, (da, db)) = caller_grad(a, b, kind);
            assert!(value.is_finite(), "kind {kind}");
            assert_fd_gradient(|v| caller(v[0], v[1], kind), &[a, b], &[da, db], "caller");
            // The factor is 0: the value is (b²) a + b, its gradient (b², 2 a b + 1).
            assert!((da - b * b).abs() < 1e-12 && (db - (2.0 * a * b + 1.0)).abs() < 1e-12);
            let (value_j, tangent) = caller_jvp(a, b, kind, (p[2], p[3]));
            assert_eq!(value_j.to_bits(), value.to_bits());
            let along = da * p[2] + db * p[3];
            assert!(
                (tangent - along).abs() <= 1e-12 * (1.0 + along.abs()),
                "kind {kind}: f_jvp {tangent}, f_grad along the tangent {along}"
            );
        }
    }
}
