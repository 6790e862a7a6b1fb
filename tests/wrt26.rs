//! Plain functions (no derivatives) called with constants, found by porting other AD projects' tests
//! (tests/probe_ports26.rs), checked against analytic derivatives and central differences
//! (`common::probe`, no code shared with the macro) at seeded points:
//! - a tuple of constants passed by reference at `order = 2`, whose generic copy retyped the tuple's
//!   floats to `__S` (E0308 at the call);
//! - a float parameter that `wrt(..)` leaves out, passed to a plain function: an error at the call
//!   (tests/ui/calls/wrt-excluded-parameter-to-plain-function.rs: the items other differentiable
//!   functions call differentiate every float parameter), whose note says to pass `stop_gradient(t)`.

mod common;

use autodiff::{differentiable, stop_gradient};
use common::probe::*;

fn bump(x: f64, t: f64) -> f64 {
    if x + t > 1.0 {
        5.0 * t
    } else {
        t * t
    }
}

/// `t` outside `wrt(..)` passed to a plain function, as the error's note says to write it.
#[differentiable(wrt(u))]
fn g(u: &[f64], t: f64) -> f64 {
    u[0] * u[0] * u[1] + bump(0.5, stop_gradient(t)) * u[1]
}

#[test]
fn wrt_excluded_parameter_through_stop_gradient() {
    let mut lcg = Lcg::new(2603);
    for _ in 0..20 {
        let u = [lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0)];
        let t = lcg.uniform(-1.0, 2.0);
        let (v, grad) = g_grad(&u, t);
        let b = bump(0.5, t);
        assert_near(v, u[0] * u[0] * u[1] + b * u[1], 1e-14, 1.0, "g");
        assert_near(grad[0], 2.0 * u[0] * u[1], 1e-14, 1.0, "dg/du0");
        assert_near(grad[1], u[0] * u[0] + b, 1e-14, 1.0, "dg/du1");
        let f0 = |a: f64| g(&[a, u[1]], t);
        let f1 = |a: f64| g(&[u[0], a], t);
        assert_near(grad[0], fd1(&f0, u[0], 1e-6), 1e-7, 1.0, "dg/du0 fd");
        assert_near(grad[1], fd1(&f1, u[1], 1e-6), 1e-7, 1.0, "dg/du1 fd");
    }
}

fn tuple_sum(t: &(f64, f64)) -> f64 {
    t.0 + t.1
}

#[differentiable(order = 2)]
fn h(x: f64) -> f64 {
    let c = (1.0, 2.0);
    x * x * tuple_sum(&c)
}

fn weigh(w: &((f64, f64), f64)) -> f64 {
    (w.0 .0 * 3.0 + w.0 .1) * w.1 - 2.0
}

/// Nested, used in two calls; and a tuple of literals built in place in the call.
#[differentiable(order = 2)]
fn h2(x: f64, y: f64) -> f64 {
    let w = ((0.5, -1.5), 2.0);
    x * y * weigh(&w) + y.sin() * weigh(&w) * 0.5 + x * x * tuple_sum(&(0.25, 0.75))
}

#[test]
fn constant_tuple_to_plain_helper_hessian() {
    let mut lcg = Lcg::new(2602);
    for _ in 0..20 {
        let x = lcg.uniform(-3.0, 3.0);
        let (v, g) = h_grad(x);
        assert_near(v, 3.0 * x * x, 1e-14, 1.0, "h");
        assert_near(g, 6.0 * x, 1e-14, 1.0, "h'");
        assert_near(g, fd1(&h, x, 1e-6), 1e-7, 1.0, "h' fd");
        let (v2, g2, m) = h_hessian(x);
        assert_near(v2, v, 1e-15, 1.0, "h (hessian)");
        assert_near(g2, g, 1e-14, 1.0, "h' (hessian)");
        assert_near(m[0][0], 6.0, 1e-13, 1.0, "h''");
        let fd = fd1(&|x| h_grad(x).1, x, 1e-5);
        assert_near(m[0][0], fd, 1e-6, 1.0, "h'' fd of _grad");
        let d = h_derivatives(x);
        assert_near(d[2], 6.0, 1e-13, 1.0, "h_derivatives[2]");
    }
}

#[test]
fn nested_constant_tuple_to_plain_helper_hessian() {
    // weigh(&w) = (0.5 * 3 - 1.5) * 2 - 2 = -2: h2 = -2 x y - sin(y) + x^2.
    let mut lcg = Lcg::new(2603);
    for _ in 0..20 {
        let (x, y) = (lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0));
        let (v, g) = h2_grad(x, y);
        assert_near(v, -2.0 * x * y - y.sin() + x * x, 1e-14, 1.0, "h2");
        let e = [2.0 * x - 2.0 * y, -2.0 * x - y.cos()];
        assert_vec_near(&[g.0, g.1], &e, 1e-14, "h2'");
        let fd = fd_gradient(&|p| h2(p[0], p[1]), &[x, y]);
        assert_vec_near(&[g.0, g.1], &fd, 1e-7, "h2' fd");
        let (_, _, m) = h2_hessian(x, y);
        let e = [[2.0, -2.0], [-2.0, y.sin()]];
        for i in 0..2 {
            assert_vec_near(&m[i], &e[i], 1e-13, "h2''");
        }
        let fd = fd_columns(
            &|p| {
                let g = h2_grad(p[0], p[1]).1;
                vec![g.0, g.1]
            },
            &[x, y],
        );
        for i in 0..2 {
            for j in 0..2 {
                assert_near(m[i][j], fd[j][i], 1e-6, 1.0, "h2'' fd of _grad");
            }
        }
    }
}
