//! Issue 26: a tuple of constants passed by reference to a plain function (no derivatives) at
//! `order = 2`, whose generic copy retyped the tuple's floats to `__S` (E0308 at the call). Checked
//! against analytic derivatives and central differences (`common::probe`, no code shared with the
//! macro) at seeded points.

mod common;

use autodiff::differentiable;
use common::probe::*;

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
