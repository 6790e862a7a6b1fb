//! `order = K` through first-order functions that call others by a path (`m::sq(u, v)`,
//! `crate::shapes::squares(u, v)`, `W::sq(x)` by the type's name): their generic copies call the callees'
//! copies through `copy_by_path!`, as a custom function's copy does (`shadow::surely_compiling_copy`).
//! Before, such a function had no generic copy and every `order = K` caller failed at the call. Hessians
//! checked against analytic values and central differences of the gradient, on many inputs.

mod common;

use autodiff::{differentiable, stop_gradient};
use common::{assert_close, assert_jacobian, fd_jacobian, Inputs};

mod m {
    use autodiff::differentiable;

    #[differentiable]
    pub fn sq(u: f64, v: f64) -> f64 {
        u * v * v
    }

    pub mod deeper {
        use autodiff::differentiable;

        #[differentiable]
        pub fn sine(u: f64) -> f64 {
            u.sin()
        }
    }
}

mod shapes {
    use autodiff::differentiable;

    #[differentiable]
    pub fn squares(u: f64, v: f64) -> f64 {
        u * u + v * v
    }

    /// Calls a function of its parent module by a path (`super::m::sq`).
    #[differentiable]
    pub fn through_super(u: f64, v: f64) -> f64 {
        super::m::sq(u, v) * u
    }
}

/// First order only, calling by a path.
#[differentiable]
fn mid(u: f64, v: f64) -> f64 {
    m::sq(u, v) + u
}

/// First order only, calling by a path of three segments and by `crate::`.
#[differentiable]
fn mixed(u: f64, v: f64) -> f64 {
    m::deeper::sine(u) * crate::shapes::squares(u, v)
}

/// x² y² + x².
#[differentiable(order = 2)]
fn top(x: f64, y: f64) -> f64 {
    mid(x, y) * x
}

/// sin(x) (x² + y²) + x y² x (through `shapes::through_super`, which calls `super::m::sq`).
#[differentiable(order = 2)]
fn top_mixed(x: f64, y: f64) -> f64 {
    mixed(x, y) + shapes::through_super(x, y)
}

/// A nested `fn` item calling by `crate::` (x³ + x y² + x).
#[differentiable(order = 2)]
fn nested(x: f64, y: f64) -> f64 {
    fn inner(u: f64, v: f64) -> f64 {
        crate::shapes::squares(u, v) * u
    }
    inner(x, y) + x
}

/// First order only, holding values constant by `autodiff::stop_gradient`'s path and by its name: its
/// generic copy holds them constant again (it had none before, so `through_held` failed at the call).
#[differentiable]
fn held(x: f64, y: f64) -> f64 {
    x * autodiff::stop_gradient(x * y) + stop_gradient(y) * x * x
}

/// `held` + x y. With c₁ = x y and c₂ = y held: gradient (c₁ + 2 c₂ x + y, x), Hessian [[2 y, 1], [1, 0]]
/// (JAX's `stop_gradient`: zero at every order, so not the differences of the gradient).
#[differentiable(order = 2)]
fn through_held(x: f64, y: f64) -> f64 {
    held(x, y) + x * y
}

struct W;

impl W {
    #[differentiable]
    fn sq(x: f64) -> f64 {
        x * x
    }

    /// Calls an associated function by the type's name (`W::sq`, not `Self::sq`).
    #[differentiable]
    fn via(x: f64) -> f64 {
        W::sq(x) * x
    }
}

/// x³ + x² by `W::via` and `W::sq`, to the third derivative.
#[differentiable(order = 3)]
fn by_type_name(x: f64) -> f64 {
    W::via(x) + W::sq(x)
}

/// Checks `got` against the analytic Hessian and central differences of `grad` at `at`.
fn check(
    name: &str,
    at: [f64; 2],
    got: &[Vec<f64>],
    analytic: [[f64; 2]; 2],
    grad: impl Fn(f64, f64) -> (f64, f64),
) {
    let analytic: Vec<Vec<f64>> = analytic.iter().map(|r| r.to_vec()).collect();
    assert_jacobian(got, &analytic, &format!("{name} Hessian by hand at {at:?}"));
    let fd = fd_jacobian(
        |p| {
            let (gx, gy) = grad(p[0], p[1]);
            vec![gx, gy]
        },
        &at,
    );
    assert_jacobian(
        got,
        &fd,
        &format!("{name} Hessian by differences at {at:?}"),
    );
}

#[test]
fn order_k_reaches_through_calls_by_a_path() {
    let mut inputs = Inputs(21);
    for _ in 0..50 {
        let (x, y) = (2.0 * inputs.next(), 2.0 * inputs.next());

        assert_close(top(x, y), x * x * y * y + x * x, 1e-12, "top");
        assert_close(nested(x, y), x * x * x + x * y * y + x, 1e-12, "nested");
        assert_close(by_type_name(x), x * x * x + x * x, 1e-12, "by_type_name");
        let (v, (gx, gy), h) = top_hessian(x, y);
        assert_close(v, x * x * y * y + x * x, 1e-12, "top value");
        assert_close(gx, 2.0 * x * y * y + 2.0 * x, 1e-10, "top gradient x");
        assert_close(gy, 2.0 * x * x * y, 1e-10, "top gradient y");
        check(
            "top",
            [x, y],
            &h,
            [[2.0 * y * y + 2.0, 4.0 * x * y], [4.0 * x * y, 2.0 * x * x]],
            |x, y| top_grad(x, y).1,
        );

        // sin x (x² + y²) + x² y²
        let (s, c) = x.sin_cos();
        let r = x * x + y * y;
        assert_close(top_mixed(x, y), s * r + x * x * y * y, 1e-12, "top_mixed");
        let (v, (gx, gy), h) = top_mixed_hessian(x, y);
        assert_close(v, s * r + x * x * y * y, 1e-12, "top_mixed value");
        assert_close(
            gx,
            c * r + 2.0 * x * s + 2.0 * x * y * y,
            1e-10,
            "top_mixed gradient x",
        );
        assert_close(
            gy,
            2.0 * y * s + 2.0 * x * x * y,
            1e-10,
            "top_mixed gradient y",
        );
        check(
            "top_mixed",
            [x, y],
            &h,
            [
                [
                    -s * r + 4.0 * x * c + 2.0 * s + 2.0 * y * y,
                    2.0 * y * c + 4.0 * x * y,
                ],
                [2.0 * y * c + 4.0 * x * y, 2.0 * s + 2.0 * x * x],
            ],
            |x, y| top_mixed_grad(x, y).1,
        );

        let (v, _, h) = nested_hessian(x, y);
        assert_close(v, x * x * x + x * y * y + x, 1e-12, "nested value");
        check(
            "nested",
            [x, y],
            &h,
            [[6.0 * x, 2.0 * y], [2.0 * y, 2.0 * x]],
            |x, y| nested_grad(x, y).1,
        );

        let (v, (gx, gy), h) = through_held_hessian(x, y);
        assert_close(through_held(x, y), v, 1e-15, "through_held");
        assert_close(
            v,
            x * x * y + y * x * x + x * y,
            1e-12,
            "through_held value",
        );
        assert_close(
            gx,
            x * y + 2.0 * y * x + y,
            1e-10,
            "through_held gradient x",
        );
        assert_close(gy, x, 1e-10, "through_held gradient y");
        let analytic = vec![vec![2.0 * y, 1.0], vec![1.0, 0.0]];
        assert_jacobian(&h, &analytic, &format!("through_held Hessian at {x}, {y}"));

        let d = by_type_name_derivatives(x);
        let expected = [x * x * x + x * x, 3.0 * x * x + 2.0 * x, 6.0 * x + 2.0, 6.0];
        for (k, (got, want)) in d.iter().zip(expected).enumerate() {
            assert_close(
                *got,
                want,
                1e-10,
                &format!("by_type_name derivative {k} at {x}"),
            );
        }
    }
}

/// A module named like a function of its own, which glob-imports its parent (a natural layout: `mod huber
/// { use super::*; fn huber(..) }`). The call site's `use huber as __callee` saw both the companion type
/// `huber` and the glob-imported module `huber` (rustc's E0659, "ambiguous"); a callee named like the
/// module the caller is in is now looked up as `self::huber` (`context::in_module_named`).
mod huber {
    use super::*;

    /// The Huber loss of a residual, at a threshold.
    #[differentiable(order = 2)]
    pub fn huber(r: f64, delta: f64) -> f64 {
        if r.abs() <= delta {
            0.5 * r * r
        } else {
            delta * (r.abs() - 0.5 * delta)
        }
    }

    #[differentiable]
    pub fn total(r: &[f64], delta: f64) -> f64 {
        let mut s = 0.0;
        for &x in r {
            s += huber(x, delta);
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn scaled(r: f64, delta: f64) -> f64 {
        3.0 * huber(r, delta) * r
    }
}

#[test]
fn a_function_named_like_its_module() {
    let mut inputs = Inputs(41_002);
    for _ in 0..12 {
        let r: Vec<f64> = (0..5).map(|_| 2.0 * inputs.next()).collect();
        let delta = 0.5 + 0.5 * inputs.next().abs();
        // d/dr_i: r_i inside the threshold, delta * sign(r_i) outside; d/ddelta: 0 inside,
        // |r_i| - delta outside.
        let (v, (gr, gd)) = huber::total_grad(&r, delta);
        assert_close(v, huber::total(&r, delta), 1e-15, "value");
        let mut expected_d = 0.0;
        for (i, &x) in r.iter().enumerate() {
            let (inside, outside) = (x, delta * x.signum());
            assert_close(
                gr[i],
                if x.abs() <= delta { inside } else { outside },
                1e-12,
                "d/dr",
            );
            if x.abs() > delta {
                expected_d += x.abs() - delta;
            }
        }
        assert_close(gd, expected_d, 1e-12, "d/ddelta");
        // scaled = 3 h(r) r: d2/dr2 = 3 (h'' r + 2 h'), with h'' = 1 inside, 0 outside.
        let x = r[0];
        let (_, g, h) = huber::scaled_hessian(x, delta);
        let (h1, h2) = if x.abs() <= delta {
            (x, 1.0)
        } else {
            (delta * x.signum(), 0.0)
        };
        let hv = huber::huber(x, delta);
        assert_close(huber::scaled(x, delta), 3.0 * hv * x, 1e-15, "scaled");
        assert_close(g.0, 3.0 * (h1 * x + hv), 1e-12, "scaled d/dr");
        assert_close(h[0][0], 3.0 * (h2 * x + 2.0 * h1), 1e-10, "scaled d2/dr2");
    }
}
