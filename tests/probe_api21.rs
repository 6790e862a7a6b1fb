//! A probe of `API.md` written as a new user would write against it: small functions of every body form
//! the contract lists (iterator chains with closures, closures bound to locals, sub-slices, matrices,
//! arrays as the value of `if`/`match`/`return`, nested `fn` items, recursion, `match` with `|` and
//! ranges, labelled loops, `T::from(..).unwrap()`), `f_grad_into`, output parameters, `f_jacobian`,
//! methods and `Differentiable` structs, custom and registered gradients, most at `order = 2` or `3`.
//!
//! Every gradient is checked against central differences at seeded points (`common::probe`), many also
//! against derivatives worked out by hand; Hessians against central differences of the gradient;
//! `f_derivatives` against differences of the lower derivatives. The generated items' signatures are
//! pinned by type annotations as API.md writes them.

// The forms as a user writes them from the formulas: index loops, explicit returns.
#![allow(
    dead_code,
    clippy::needless_range_loop,
    clippy::needless_return,
    clippy::type_complexity,
    clippy::ptr_arg,
    clippy::excessive_precision,
    clippy::manual_clamp,
    clippy::neg_multiply,
    clippy::assign_op_pattern,
    clippy::len_zero,
    clippy::vec_init_then_push,
    clippy::precedence
)]

mod common;

use autodiff::{check_gradient, check_gradient_of, Differentiable, Dual};
use common::probe::{assert_near, assert_vec_near, dot, fd1, fd_columns, fd_gradient, Lcg};

/// Compares a gradient with central differences of `f` at `x`.
#[track_caller]
fn fd_check(what: &str, f: &dyn Fn(&[f64]) -> f64, x: &[f64], grad: &[f64]) {
    let fd = fd_gradient(f, x);
    assert_vec_near(grad, &fd, 1e-6, what);
}

/// Compares a Hessian with central differences of the gradient `g` at `x`.
#[track_caller]
fn hess_check(what: &str, g: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], h: &[Vec<f64>]) {
    let cols = fd_columns(g, x);
    assert_eq!(h.len(), x.len(), "{what}: rows");
    let scale = h
        .iter()
        .flat_map(|r| r.iter())
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    for i in 0..x.len() {
        assert_eq!(h[i].len(), x.len(), "{what}: columns");
        for j in 0..x.len() {
            assert_near(
                h[i][j],
                cols[j][i],
                1e-5,
                scale,
                &format!("{what}[{i}][{j}]"),
            );
        }
    }
}

/// Flattens a matrix row-major.
fn flat(m: &[Vec<f64>]) -> Vec<f64> {
    m.iter().flat_map(|r| r.iter().copied()).collect()
}

/// The rows of a flat `r × c` matrix.
fn rows(x: &[f64], c: usize) -> Vec<Vec<f64>> {
    x.chunks(c).map(|r| r.to_vec()).collect()
}

// ---- iterator chains with closures ----

mod chains {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn sum_sq(x: &[f64]) -> f64 {
        x.iter().map(|v| v * v).sum()
    }

    #[differentiable(order = 2)]
    pub fn zip_dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b.iter()).map(|(p, q)| p * q).sum()
    }

    #[differentiable(order = 2)]
    pub fn ranked_sines(x: &[f64]) -> f64 {
        x.iter()
            .enumerate()
            .map(|(i, v)| (i as f64 + 1.0) * v.sin())
            .sum()
    }

    #[differentiable(order = 2)]
    pub fn horner_fold(c: &[f64], t: f64) -> f64 {
        c.iter().fold(0.0, |acc, k| acc * t + k)
    }

    #[differentiable(order = 2)]
    pub fn product_of(x: &[f64]) -> f64 {
        x.iter().product()
    }

    #[differentiable(order = 2)]
    pub fn lse_copied(x: &[f64]) -> f64 {
        x.iter().copied().map(|v| v.exp()).sum::<f64>().ln()
    }

    #[differentiable(order = 2)]
    pub fn zipped_fold(x: &[f64], w: &[f64]) -> f64 {
        x.iter()
            .zip(w)
            .fold(1.0, |acc, (a, b)| acc + (a * b).tanh())
    }

    #[differentiable(order = 2)]
    pub fn squared_sum(x: &[f64]) -> f64 {
        let s: f64 = x.iter().sum();
        s * s
    }
}

#[test]
fn iterator_chains_first_and_second_order() {
    let mut rng = Lcg::new(2101);
    for _ in 0..8 {
        let x = rng.vec(4, -1.0, 1.0);
        let w = rng.vec(4, -1.0, 1.0);

        let (v, g): (f64, Vec<f64>) = chains::sum_sq_grad(&x);
        assert_eq!(v, chains::sum_sq(&x));
        assert_vec_near(
            &g,
            &x.iter().map(|a| 2.0 * a).collect::<Vec<_>>(),
            1e-12,
            "sum_sq",
        );
        let (_, _, h): (f64, Vec<f64>, Vec<Vec<f64>>) = chains::sum_sq_hessian(&x);
        for i in 0..4 {
            for j in 0..4 {
                assert_near(
                    h[i][j],
                    if i == j { 2.0 } else { 0.0 },
                    1e-12,
                    1.0,
                    "sum_sq h",
                );
            }
        }

        let (_, (ga, gb)): (f64, (Vec<f64>, Vec<f64>)) = chains::zip_dot_grad(&x, &w);
        assert_vec_near(&ga, &w, 1e-12, "zip_dot a");
        assert_vec_near(&gb, &x, 1e-12, "zip_dot b");
        let (_, _, h) = chains::zip_dot_hessian(&x, &w);
        for i in 0..8 {
            for j in 0..8 {
                let e = if (i + 4 == j) || (j + 4 == i) {
                    1.0
                } else {
                    0.0
                };
                assert_near(h[i][j], e, 1e-12, 1.0, "zip_dot h");
            }
        }

        let (_, g) = chains::ranked_sines_grad(&x);
        let e: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f64 + 1.0) * v.cos())
            .collect();
        assert_vec_near(&g, &e, 1e-12, "ranked_sines");
        let (_, _, h) = chains::ranked_sines_hessian(&x);
        for i in 0..4 {
            assert_near(
                h[i][i],
                -(i as f64 + 1.0) * x[i].sin(),
                1e-12,
                1.0,
                "ranked h",
            );
        }

        // Horner: c0 t³ + c1 t² + c2 t + c3.
        let t = rng.uniform(-1.5, 1.5);
        let (v, (gc, gt)): (f64, (Vec<f64>, f64)) = chains::horner_fold_grad(&x, t);
        assert_near(
            v,
            x[0] * t.powi(3) + x[1] * t * t + x[2] * t + x[3],
            1e-12,
            1.0,
            "horner",
        );
        assert_vec_near(&gc, &[t.powi(3), t * t, t, 1.0], 1e-12, "horner c");
        assert_near(
            gt,
            3.0 * x[0] * t * t + 2.0 * x[1] * t + x[2],
            1e-12,
            1.0,
            "horner t",
        );
        let mut xt = x.clone();
        xt.push(t);
        let (_, _, h) = chains::horner_fold_hessian(&x, t);
        hess_check(
            "horner h",
            &|z| {
                let (_, (a, b)) = chains::horner_fold_grad(&z[..4], z[4]);
                let mut a = a;
                a.push(b);
                a
            },
            &xt,
            &h,
        );
        assert_near(
            h[4][4],
            6.0 * x[0] * t + 2.0 * x[1],
            1e-12,
            1.0,
            "horner tt",
        );

        let (v, g) = chains::product_of_grad(&x);
        let p: f64 = x.iter().product();
        assert_near(v, p, 1e-14, 1.0, "product");
        for i in 0..4 {
            let others: f64 = (0..4).filter(|&j| j != i).map(|j| x[j]).product();
            assert_near(g[i], others, 1e-12, 1.0, "product g");
        }
        let (_, _, h) = chains::product_of_hessian(&x);
        hess_check("product h", &|z| chains::product_of_grad(z).1, &x, &h);

        let (_, g) = chains::lse_copied_grad(&x);
        let s: f64 = x.iter().map(|v| v.exp()).sum();
        assert_vec_near(
            &g,
            &x.iter().map(|v| v.exp() / s).collect::<Vec<_>>(),
            1e-12,
            "lse",
        );
        let (_, _, h) = chains::lse_copied_hessian(&x);
        hess_check("lse h", &|z| chains::lse_copied_grad(z).1, &x, &h);

        let (_, (gx, gw)) = chains::zipped_fold_grad(&x, &w);
        for i in 0..4 {
            let sech2 = 1.0 - (x[i] * w[i]).tanh().powi(2);
            assert_near(gx[i], w[i] * sech2, 1e-12, 1.0, "zipped_fold x");
            assert_near(gw[i], x[i] * sech2, 1e-12, 1.0, "zipped_fold w");
        }
        let mut xw = x.clone();
        xw.extend(&w);
        let (_, _, h) = chains::zipped_fold_hessian(&x, &w);
        hess_check(
            "zipped_fold h",
            &|z| {
                let (_, (a, b)) = chains::zipped_fold_grad(&z[..4], &z[4..]);
                [a, b].concat()
            },
            &xw,
            &h,
        );

        let (_, g) = chains::squared_sum_grad(&x);
        let s: f64 = x.iter().sum();
        assert_vec_near(&g, &[2.0 * s; 4], 1e-12, "squared_sum");
        let (_, _, hv): (f64, Vec<f64>, Vec<f64>) = chains::squared_sum_hvp(&x, w.clone());
        let ws: f64 = w.iter().sum();
        assert_vec_near(&hv, &[2.0 * ws; 4], 1e-12, "squared_sum hvp");
    }
}

// ---- closures bound to locals ----

mod closures {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn squares(x: f64, y: f64) -> f64 {
        let sq = |v: f64| v * v;
        sq(x) + sq(x * y)
    }

    #[differentiable(order = 2)]
    pub fn captured(x: f64, y: f64) -> f64 {
        let k = x.sin();
        let scale = |v: f64| k * v;
        scale(y) + scale(x)
    }

    #[differentiable(order = 2)]
    pub fn in_loop(x: &[f64]) -> f64 {
        let soft = |v: f64| (1.0 + v.exp()).ln();
        let mut s = 0.0;
        for &v in x {
            s += soft(v);
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn two_args(x: f64, y: f64) -> f64 {
        let f = |a: f64, b: f64| a * b + a.exp();
        f(x, y) - f(y, x)
    }
}

#[test]
fn closures_bound_to_locals() {
    let mut rng = Lcg::new(2102);
    for _ in 0..10 {
        let (x, y) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
        let (v, (gx, gy)): (f64, (f64, f64)) = closures::squares_grad(x, y);
        assert_near(v, x * x + x * x * y * y, 1e-12, 1.0, "squares");
        assert_near(gx, 2.0 * x + 2.0 * x * y * y, 1e-12, 1.0, "squares x");
        assert_near(gy, 2.0 * x * x * y, 1e-12, 1.0, "squares y");
        let (_, _, h) = closures::squares_hessian(x, y);
        let e = [[2.0 + 2.0 * y * y, 4.0 * x * y], [4.0 * x * y, 2.0 * x * x]];
        for i in 0..2 {
            for j in 0..2 {
                assert_near(h[i][j], e[i][j], 1e-12, 1.0, "squares h");
            }
        }

        // sin(x) y + sin(x) x
        let (_, (gx, gy)) = closures::captured_grad(x, y);
        assert_near(
            gx,
            x.cos() * y + x.cos() * x + x.sin(),
            1e-12,
            1.0,
            "captured x",
        );
        assert_near(gy, x.sin(), 1e-12, 1.0, "captured y");
        let (_, _, h) = closures::captured_hessian(x, y);
        assert_near(
            h[0][0],
            -x.sin() * y - x.sin() * x + 2.0 * x.cos(),
            1e-12,
            1.0,
            "cap xx",
        );
        assert_near(h[0][1], x.cos(), 1e-12, 1.0, "cap xy");
        assert_near(h[1][1], 0.0, 1e-12, 1.0, "cap yy");

        let (_, (gx, gy)) = closures::two_args_grad(x, y);
        assert_near(gx, y + x.exp() - y, 1e-12, 1.0, "two_args x");
        assert_near(gy, x - x - y.exp(), 1e-12, 1.0, "two_args y");
        let (_, _, h) = closures::two_args_hessian(x, y);
        hess_check(
            "two_args h",
            &|z| {
                let (_, (a, b)) = closures::two_args_grad(z[0], z[1]);
                vec![a, b]
            },
            &[x, y],
            &h,
        );

        let xs = rng.vec(5, -2.0, 2.0);
        let (_, g) = closures::in_loop_grad(&xs);
        let e: Vec<f64> = xs.iter().map(|v| 1.0 / (1.0 + (-v).exp())).collect();
        assert_vec_near(&g, &e, 1e-12, "in_loop");
        let (_, _, h) = closures::in_loop_hessian(&xs);
        for i in 0..5 {
            assert_near(h[i][i], e[i] * (1.0 - e[i]), 1e-12, 1.0, "in_loop h");
        }
    }
}

// ---- sub-slices ----

mod slices {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn pair_energy(p: &[f64]) -> f64 {
        (p[0] - p[1]).powi(2) + p[0] * p[1]
    }

    #[differentiable(order = 2)]
    pub fn tail_weighted(x: &[f64]) -> f64 {
        let t = &x[1..];
        t.iter().map(|v| v.exp()).sum::<f64>() * x[0]
    }

    #[differentiable(order = 2)]
    pub fn windows(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            s += pair_energy(&x[i..i + 2]);
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn head_and_tail(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in &x[..3] {
            s += v.cos();
        }
        s + crate::chains::sum_sq(&x[2..])
    }
}

#[test]
fn sub_slices_read_iterated_and_passed_on() {
    let mut rng = Lcg::new(2103);
    for _ in 0..8 {
        let x = rng.vec(5, -1.0, 1.0);
        let (v, g): (f64, Vec<f64>) = slices::tail_weighted_grad(&x);
        assert_eq!(v, slices::tail_weighted(&x));
        let s: f64 = x[1..].iter().map(|v| v.exp()).sum();
        assert_near(g[0], s, 1e-12, 1.0, "tail 0");
        for i in 1..5 {
            assert_near(g[i], x[0] * x[i].exp(), 1e-12, 1.0, "tail i");
        }
        let (_, _, h) = slices::tail_weighted_hessian(&x);
        hess_check("tail h", &|z| slices::tail_weighted_grad(z).1, &x, &h);

        let (_, g) = slices::windows_grad(&x);
        fd_check("windows", &|z| slices::windows(z), &x, &g);
        let (_, _, h) = slices::windows_hessian(&x);
        hess_check("windows h", &|z| slices::windows_grad(z).1, &x, &h);

        let (_, g) = slices::head_and_tail_grad(&x);
        let mut e = vec![0.0; 5];
        for i in 0..3 {
            e[i] -= x[i].sin();
        }
        for i in 2..5 {
            e[i] += 2.0 * x[i];
        }
        assert_vec_near(&g, &e, 1e-12, "head_and_tail");
        let (_, _, h) = slices::head_and_tail_hessian(&x);
        hess_check(
            "head_and_tail h",
            &|z| slices::head_and_tail_grad(z).1,
            &x,
            &h,
        );
    }
}

// ---- matrices ----

mod matrices {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn quad_form(a: &[Vec<f64>], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            for j in 0..x.len() {
                s += x[i] * a[i][j] * x[j];
            }
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn frob(m: Vec<Vec<f64>>) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            for j in 0..m[i].len() {
                s += m[i][j] * m[i][j];
            }
        }
        s.sqrt()
    }

    #[differentiable(order = 2)]
    pub fn det3(m: [[f64; 3]; 3]) -> f64 {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    #[differentiable(order = 2)]
    pub fn trace_sq(m: &[[f64; 2]; 2]) -> f64 {
        let mut t = 0.0;
        for i in 0..2 {
            for k in 0..2 {
                t += m[i][k] * m[k][i];
            }
        }
        t
    }

    #[differentiable]
    pub fn matvec(a: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; a.len()];
        for i in 0..a.len() {
            for j in 0..x.len() {
                y[i] += a[i][j] * x[j];
            }
        }
        y
    }

    #[differentiable(order = 2)]
    pub fn gram(x: &[f64]) -> f64 {
        let n = x.len();
        let mut g = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                g[i][j] = x[i] * x[j].sin();
            }
        }
        let mut s = 0.0;
        for i in 0..n {
            s += g[i][(i + 1) % n];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn row_norms(m: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for r in m {
            s += r.iter().map(|v| v * v).sum::<f64>().sqrt();
        }
        s
    }
}

#[test]
fn matrices_as_vec_of_vec_slices_of_rows_and_nested_arrays() {
    let mut rng = Lcg::new(2104);
    for _ in 0..6 {
        let a = vec![
            rng.vec(3, -1.0, 1.0),
            rng.vec(3, -1.0, 1.0),
            rng.vec(3, -1.0, 1.0),
        ];
        let x = rng.vec(3, -1.0, 1.0);
        let (v, (ga, gx)): (f64, (Vec<Vec<f64>>, Vec<f64>)) = matrices::quad_form_grad(&a, &x);
        assert_eq!(v, matrices::quad_form(&a, &x));
        for i in 0..3 {
            for j in 0..3 {
                assert_near(ga[i][j], x[i] * x[j], 1e-12, 1.0, "quad a");
            }
            let e = (0..3).map(|j| (a[i][j] + a[j][i]) * x[j]).sum::<f64>();
            assert_near(gx[i], e, 1e-12, 1.0, "quad x");
        }
        let (_, _, h) = matrices::quad_form_hessian(&a, &x);
        assert_eq!(h.len(), 12);
        let mut z = flat(&a);
        z.extend(&x);
        hess_check(
            "quad h",
            &|z| {
                let (_, (ga, gx)) = matrices::quad_form_grad(&rows(&z[..9], 3), &z[9..]);
                [flat(&ga), gx].concat()
            },
            &z,
            &h,
        );

        let (v, g): (f64, Vec<Vec<f64>>) = matrices::frob_grad(a.clone());
        for i in 0..3 {
            for j in 0..3 {
                assert_near(g[i][j], a[i][j] / v, 1e-12, 1.0, "frob");
            }
        }
        let (_, _, h) = matrices::frob_hessian(a.clone());
        hess_check(
            "frob h",
            &|z| flat(&matrices::frob_grad(rows(z, 3)).1),
            &flat(&a),
            &h,
        );

        let m: [[f64; 3]; 3] = [
            [a[0][0], a[0][1], a[0][2]],
            [a[1][0], a[1][1], a[1][2]],
            [a[2][0], a[2][1], a[2][2]],
        ];
        let (_, g): (f64, [[f64; 3]; 3]) = matrices::det3_grad(m);
        // The gradient of det is the cofactor matrix.
        for i in 0..3 {
            for j in 0..3 {
                let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
                let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
                let cof = m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
                assert_near(g[i][j], cof, 1e-12, 1.0, "det3 cofactor");
            }
        }
        let to_m = |z: &[f64]| -> [[f64; 3]; 3] {
            [[z[0], z[1], z[2]], [z[3], z[4], z[5]], [z[6], z[7], z[8]]]
        };
        let (_, _, h) = matrices::det3_hessian(m);
        hess_check(
            "det3 h",
            &|z| matrices::det3_grad(to_m(z)).1.concat(),
            &flat(&a),
            &h,
        );

        let m2 = [[x[0], x[1]], [x[2], a[0][0]]];
        let (v, g): (f64, [[f64; 2]; 2]) = matrices::trace_sq_grad(&m2);
        assert_near(
            v,
            m2[0][0].powi(2) + 2.0 * m2[0][1] * m2[1][0] + m2[1][1].powi(2),
            1e-12,
            1.0,
            "tr",
        );
        assert_near(g[0][1], 2.0 * m2[1][0], 1e-12, 1.0, "tr 01");
        assert_near(g[1][0], 2.0 * m2[0][1], 1e-12, 1.0, "tr 10");
        assert_near(g[1][1], 2.0 * m2[1][1], 1e-12, 1.0, "tr 11");
        let (_, _, h) = matrices::trace_sq_hessian(&m2);
        assert_near(h[1][2], 2.0, 1e-12, 1.0, "tr h12");
        assert_near(h[0][0], 2.0, 1e-12, 1.0, "tr h00");
        assert_near(h[0][1], 0.0, 1e-12, 1.0, "tr h01");

        // matvec: the Jacobian over (A row-major, x).
        let jac: Vec<Vec<f64>> = matrices::matvec_jacobian(&a, &x);
        assert_eq!(jac.len(), 3);
        assert_eq!(jac[0].len(), 12);
        let cols = fd_columns(
            &|z: &[f64]| matrices::matvec(&rows(&z[..9], 3), &z[9..]),
            &z,
        );
        for i in 0..3 {
            for j in 0..12 {
                assert_near(jac[i][j], cols[j][i], 1e-7, 1.0, "matvec jac");
            }
        }
        let dy = rng.vec(3, -1.0, 1.0);
        let (y, (da, dx)): (Vec<f64>, (Vec<Vec<f64>>, Vec<f64>)) =
            matrices::matvec_vjp(&a, &x, dy.clone());
        assert_vec_near(&y, &matrices::matvec(&a, &x), 1e-14, "matvec value");
        for i in 0..3 {
            for j in 0..3 {
                assert_near(da[i][j], dy[i] * x[j], 1e-12, 1.0, "matvec da");
            }
            let e: f64 = (0..3).map(|k| dy[k] * a[k][i]).sum();
            assert_near(dx[i], e, 1e-12, 1.0, "matvec dx");
        }

        let (_, g) = matrices::gram_grad(&x);
        fd_check("gram", &|z| matrices::gram(z), &x, &g);
        let (_, _, h) = matrices::gram_hessian(&x);
        hess_check("gram h", &|z| matrices::gram_grad(z).1, &x, &h);

        let (_, g): (f64, Vec<Vec<f64>>) = matrices::row_norms_grad(&a);
        for i in 0..3 {
            let n = a[i].iter().map(|v| v * v).sum::<f64>().sqrt();
            for j in 0..3 {
                assert_near(g[i][j], a[i][j] / n, 1e-12, 1.0, "row_norms");
            }
        }
        let (_, _, h) = matrices::row_norms_hessian(&a);
        hess_check(
            "row_norms h",
            &|z| flat(&matrices::row_norms_grad(&rows(z, 3)).1),
            &flat(&a),
            &h,
        );
    }
}

// ---- arrays as the value of `if`, `match` and early `return` ----

mod array_values {
    use autodiff::differentiable;

    #[differentiable]
    pub fn branch(x: f64, k: usize) -> [f64; 2] {
        if k == 0 {
            [x, x * x]
        } else {
            [x.sin(), 1.0]
        }
    }

    #[differentiable(order = 2)]
    pub fn matched(x: f64, y: f64, k: usize) -> f64 {
        let v = match k {
            0 | 1 => [x * y, y],
            2..=4 => [x.exp(), y * y],
            _ => [1.0, x],
        };
        v[0] + v[1] * x
    }

    #[differentiable]
    pub fn early(x: [f64; 3]) -> [f64; 3] {
        if x[0] > 0.0 {
            return [x[0] * x[1], x[2], x[1]];
        }
        [x[2].exp(), x[0], x[0] * x[1]]
    }

    #[differentiable]
    pub fn ordered(x: f64, y: f64) -> [f64; 2] {
        if x > y {
            return [x, y];
        }
        [y, x * y]
    }

    #[differentiable(order = 2)]
    pub fn through_ordered(x: f64, y: f64) -> f64 {
        let a = ordered(x, y);
        a[0] * a[1].sin()
    }
}

#[test]
fn arrays_as_values_of_if_match_and_return() {
    let mut rng = Lcg::new(2105);
    for _ in 0..10 {
        let x = rng.uniform(-2.0, 2.0);
        let y = rng.uniform(-2.0, 2.0);
        let j0: Vec<Vec<f64>> = array_values::branch_jacobian(x, 0);
        assert_near(j0[0][0], 1.0, 1e-12, 1.0, "branch 0");
        assert_near(j0[1][0], 2.0 * x, 1e-12, 1.0, "branch 0");
        let j1 = array_values::branch_jacobian(x, 1);
        assert_near(j1[0][0], x.cos(), 1e-12, 1.0, "branch 1");
        assert_near(j1[1][0], 0.0, 1e-12, 1.0, "branch 1");
        let (v, d): ([f64; 2], f64) = array_values::branch_vjp(x, 0, [0.5, -1.0]);
        assert_eq!(v, [x, x * x]);
        assert_near(d, 0.5 - 2.0 * x, 1e-12, 1.0, "branch vjp");
        let (v, t): ([f64; 2], [f64; 2]) = array_values::branch_jvp(x, 1, 2.0);
        assert_eq!(v, [x.sin(), 1.0]);
        assert_near(t[0], 2.0 * x.cos(), 1e-12, 1.0, "branch jvp");

        for k in 0..7 {
            let (_, (gx, gy)) = array_values::matched_grad(x, y, k);
            fd_check(
                "matched",
                &|z| array_values::matched(z[0], z[1], k),
                &[x, y],
                &[gx, gy],
            );
            let (_, _, h) = array_values::matched_hessian(x, y, k);
            hess_check(
                "matched h",
                &|z| {
                    let (_, (a, b)) = array_values::matched_grad(z[0], z[1], k);
                    vec![a, b]
                },
                &[x, y],
                &h,
            );
        }

        let p = [x, y, rng.uniform(-1.0, 1.0)];
        let jac = array_values::early_jacobian(p);
        let cols = fd_columns(&|z| array_values::early([z[0], z[1], z[2]]).to_vec(), &p);
        for i in 0..3 {
            for j in 0..3 {
                assert_near(jac[i][j], cols[j][i], 1e-7, 1.0, "early jac");
            }
        }

        if (x - y).abs() > 1e-3 {
            let (_, (gx, gy)) = array_values::through_ordered_grad(x, y);
            fd_check(
                "through_ordered",
                &|z| array_values::through_ordered(z[0], z[1]),
                &[x, y],
                &[gx, gy],
            );
            let (_, _, h) = array_values::through_ordered_hessian(x, y);
            hess_check(
                "through_ordered h",
                &|z| {
                    let (_, (a, b)) = array_values::through_ordered_grad(z[0], z[1]);
                    vec![a, b]
                },
                &[x, y],
                &h,
            );
        }
    }
}

// ---- nested fn items, recursion, labelled loops, match, loops, generic code ----

mod control {
    use autodiff::{differentiable, Float};

    #[differentiable(order = 2)]
    pub fn nested_item(x: f64, y: f64) -> f64 {
        fn sq(v: f64) -> f64 {
            v * v
        }
        sq(x) * y + sq(y)
    }

    #[differentiable(order = 2)]
    pub fn cheb(x: f64, n: usize) -> f64 {
        if n == 0 {
            1.0
        } else if n == 1 {
            x
        } else {
            2.0 * x * cheb(x, n - 1) - cheb(x, n - 2)
        }
    }

    #[differentiable(order = 2)]
    pub fn ping(x: f64, n: u32) -> f64 {
        if n == 0 {
            x
        } else {
            pong(x, n - 1).sin() + x
        }
    }

    #[differentiable(order = 2)]
    pub fn pong(x: f64, n: u32) -> f64 {
        if n == 0 {
            x * x
        } else {
            ping(x, n - 1) * x
        }
    }

    #[differentiable(order = 2)]
    pub fn labelled(x: &[f64]) -> f64 {
        let mut s = 0.0;
        'rows: for i in 0..x.len() {
            for j in 0..x.len() {
                if j > i {
                    continue 'rows;
                }
                if i * j > 6 {
                    break 'rows;
                }
                s += x[i] * x[j];
            }
        }
        s
    }

    #[differentiable(order = 3)]
    pub fn banded(x: f64, k: usize) -> f64 {
        match k {
            0 | 1 => x.sin(),
            2..=4 => x * x * x,
            _ => x.exp(),
        }
    }

    #[differentiable(order = 2)]
    pub fn relax(x: f64) -> f64 {
        let mut y = x;
        let mut i = 0;
        while i < 5 {
            y = y * 0.5 + x.cos();
            i += 1;
        }
        y
    }

    #[differentiable(order = 3)]
    pub fn odd_steps(x: f64) -> f64 {
        let mut y = 1.0;
        let mut n = 0;
        loop {
            n += 1;
            if n % 2 == 0 {
                continue;
            }
            y *= x;
            if n > 6 {
                break;
            }
        }
        y
    }

    #[differentiable(order = 2)]
    pub fn strides(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in (0..x.len()).step_by(2) {
            s += x[i];
        }
        for i in (1..=x.len() - 1).rev() {
            s = s * 0.5 + x[i] * x[i - 1];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn misc(x: &f64, p: (f64, f64)) -> f64 {
        const HALF: f64 = 0.5;
        let (a, b) = p;
        let x = *x;
        let x = x * HALF + std::f64::consts::PI;
        let mut z = a * x;
        z += b;
        z -= f64::EPSILON;
        let n = 3usize;
        z * (n as f64) - -b
    }

    #[differentiable(order = 3)]
    pub fn gen_energy<T: Float>(x: T) -> T {
        let half = T::from(0.5).unwrap();
        half * x * x + T::one() - x.cos() * T::zero().exp()
    }

    #[differentiable(order = 2)]
    pub fn gen_slice<T: Float>(x: &[T]) -> T {
        let two = T::from(2.0).unwrap();
        let mut s = T::zero();
        for &v in x {
            s = s + v.powi(2) / two;
        }
        s * x[0]
    }
}

#[test]
fn nested_items_recursion_labels_and_loops() {
    let mut rng = Lcg::new(2106);
    for _ in 0..10 {
        let x = rng.uniform(-0.9, 0.9);
        let y = rng.uniform(-2.0, 2.0);

        let (_, (gx, gy)) = control::nested_item_grad(x, y);
        assert_near(gx, 2.0 * x * y, 1e-12, 1.0, "nested x");
        assert_near(gy, x * x + 2.0 * y, 1e-12, 1.0, "nested y");
        let (_, _, h) = control::nested_item_hessian(x, y);
        assert_near(h[0][1], 2.0 * x, 1e-12, 1.0, "nested h01");
        assert_near(h[1][1], 2.0, 1e-12, 1.0, "nested h11");

        // T_n(cos θ) = cos nθ, T_n' = n sin nθ / sin θ.
        let th = x.acos();
        for n in 0..6 {
            let d: [f64; 3] = control::cheb_derivatives(x, n);
            let nf = n as f64;
            assert_near(d[0], (nf * th).cos(), 1e-12, 1.0, "cheb");
            assert_near(d[1], nf * (nf * th).sin() / th.sin(), 1e-10, 1.0, "cheb'");
            // (1 - x²) T'' - x T' + n² T = 0.
            let e = (x * d[1] - nf * nf * d[0]) / (1.0 - x * x);
            assert_near(d[2], e, 1e-9, 1.0, "cheb''");
        }

        for n in 0..5 {
            let d = control::ping_derivatives(x, n);
            assert_near(
                d[1],
                fd1(&|t| control::ping(t, n), x, 1e-6),
                1e-7,
                1.0,
                "ping'",
            );
            assert_near(
                d[2],
                fd1(&|t| control::ping_grad(t, n).1, x, 1e-6),
                1e-6,
                1.0,
                "ping''",
            );
        }

        let v = rng.vec(6, -1.0, 1.0);
        let (_, g) = control::labelled_grad(&v);
        fd_check("labelled", &|z| control::labelled(z), &v, &g);
        let (_, _, h) = control::labelled_hessian(&v);
        hess_check("labelled h", &|z| control::labelled_grad(z).1, &v, &h);

        for k in 0..7 {
            let d: [f64; 4] = control::banded_derivatives(x, k);
            let e = match k {
                0 | 1 => [x.sin(), x.cos(), -x.sin(), -x.cos()],
                2..=4 => [x.powi(3), 3.0 * x * x, 6.0 * x, 6.0],
                _ => [x.exp(); 4],
            };
            assert_vec_near(&d, &e, 1e-12, "banded");
        }

        let (_, g) = control::relax_grad(x);
        assert_near(g, fd1(&control::relax, x, 1e-6), 1e-8, 1.0, "relax");
        let d = control::relax_derivatives(x);
        assert_near(
            d[2],
            fd1(&|t| control::relax_grad(t).1, x, 1e-6),
            1e-7,
            1.0,
            "relax''",
        );

        let d: [f64; 4] = control::odd_steps_derivatives(y);
        assert_vec_near(
            &d,
            &[y.powi(4), 4.0 * y.powi(3), 12.0 * y * y, 24.0 * y],
            1e-12,
            "odd_steps",
        );

        let (_, g) = control::strides_grad(&v);
        fd_check("strides", &|z| control::strides(z), &v, &g);
        let (_, _, h) = control::strides_hessian(&v);
        hess_check("strides h", &|z| control::strides_grad(z).1, &v, &h);

        let p = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let (_, (gx, (ga, gb))): (f64, (f64, (f64, f64))) = control::misc_grad(&x, p);
        assert_near(gx, 1.5 * p.0, 1e-12, 1.0, "misc x");
        assert_near(
            ga,
            3.0 * (0.5 * x + std::f64::consts::PI),
            1e-12,
            1.0,
            "misc a",
        );
        assert_near(gb, 4.0, 1e-12, 1.0, "misc b");
        let (_, _, h) = control::misc_hessian(&x, p);
        assert_near(h[0][1], 1.5, 1e-12, 1.0, "misc h01");
        assert_near(h[1][0], 1.5, 1e-12, 1.0, "misc h10");
        assert_near(h[2][2], 0.0, 1e-12, 1.0, "misc h22");

        let d: [f64; 4] = control::gen_energy_derivatives(y);
        assert_vec_near(
            &d,
            &[
                0.5 * y * y + 1.0 - y.cos(),
                y + y.sin(),
                1.0 + y.cos(),
                -y.sin(),
            ],
            1e-12,
            "gen_energy",
        );
        let d32: [f32; 4] = control::gen_energy_derivatives(y as f32);
        assert!((d32[2] as f64 - (1.0 + (y as f32).cos() as f64)).abs() < 1e-5);
        let dual = control::gen_energy(Dual::new(y, 1.0));
        assert_near(dual.eps, y + y.sin(), 1e-12, 1.0, "gen_energy dual");
        let (_, gd) = control::gen_energy_grad(Dual::new(y, 1.0));
        assert_near(gd.eps, 1.0 + y.cos(), 1e-12, 1.0, "grad on Dual");

        let (_, g): (f64, Vec<f64>) = control::gen_slice_grad(&v);
        fd_check("gen_slice", &|z| control::gen_slice(z), &v, &g);
        let (_, _, h) = control::gen_slice_hessian(&v);
        hess_check("gen_slice h", &|z| control::gen_slice_grad(z).1, &v, &h);
        let v32: Vec<f32> = v.iter().map(|&a| a as f32).collect();
        let (_, g32): (f32, Vec<f32>) = control::gen_slice_grad(&v32);
        for i in 0..6 {
            assert!((g32[i] as f64 - g[i]).abs() < 1e-4, "gen_slice f32");
        }
    }
}

// ---- every float method, derivatives up to order 3 ----

mod methods_of_floats {
    use autodiff::differentiable;

    #[differentiable(order = 3)]
    pub fn unary(x: f64, k: usize) -> f64 {
        match k {
            0 => x.sin(),
            1 => x.cos(),
            2 => x.tan(),
            3 => x.asin(),
            4 => x.acos(),
            5 => x.atan(),
            6 => x.sinh(),
            7 => x.cosh(),
            8 => x.tanh(),
            9 => x.asinh(),
            10 => (x + 1.0).acosh(),
            11 => x.atanh(),
            12 => x.exp(),
            13 => x.exp2(),
            14 => x.exp_m1(),
            15 => x.ln(),
            16 => x.log(3.0),
            17 => x.log2(),
            18 => x.log10(),
            19 => x.ln_1p(),
            20 => x.powi(3),
            21 => x.powf(2.5),
            22 => x.sqrt(),
            23 => x.cbrt(),
            24 => (-x).abs(),
            25 => x.recip(),
            26 => x.hypot(2.0),
            27 => x.atan2(0.7),
            28 => x.mul_add(2.0, 1.0),
            29 => x.max(0.3) * x,
            30 => x.min(0.3) * x,
            31 => x.clamp(0.1, 0.6) * x,
            32 => x.signum() * x * x,
            33 => x.floor() + x.ceil() * x,
            34 => x.round() + x.trunc() + x * x,
            35 => 0.7_f64.powf(x),
            36 => 2.0_f64.atan2(x),
            _ => x.sin_cos().0 * x.sin_cos().1,
        }
    }

    #[differentiable(order = 2)]
    pub fn binary(x: f64, y: f64, k: usize) -> f64 {
        match k {
            0 => x.hypot(y),
            1 => x.atan2(y),
            2 => x.powf(y),
            3 => x.log(y),
            4 => x.mul_add(y, x * y),
            5 => x.max(y) * x.min(y),
            6 => (x * y).clamp(0.1, 5.0),
            _ => x.powi(2) * y.recip(),
        }
    }
}

#[test]
fn float_methods_to_the_third_derivative() {
    for k in 0..38 {
        for &x in &[0.25, 0.45, 0.7, 0.85] {
            let d: [f64; 4] = methods_of_floats::unary_derivatives(x, k);
            let f = |t: f64| methods_of_floats::unary(t, k);
            assert_eq!(d[0], f(x), "unary {k} value");
            let (_, g) = methods_of_floats::unary_grad(x, k);
            assert_near(
                d[1],
                g,
                1e-13,
                1.0,
                &format!("unary {k}: derivatives[1] against _grad"),
            );
            assert_near(d[1], fd1(&f, x, 1e-6), 1e-7, 1.0, &format!("unary {k}'"));
            let d1 = |t: f64| methods_of_floats::unary_derivatives(t, k)[1];
            assert_near(d[2], fd1(&d1, x, 1e-6), 1e-6, 1.0, &format!("unary {k}''"));
            let d2 = |t: f64| methods_of_floats::unary_derivatives(t, k)[2];
            assert_near(d[3], fd1(&d2, x, 1e-6), 1e-5, 1.0, &format!("unary {k}'''"));
            let (_, _, h) = methods_of_floats::unary_hessian(x, k);
            assert_near(
                h[0][0],
                d[2],
                1e-12,
                1.0,
                &format!("unary {k}: hessian against derivatives"),
            );
        }
    }
    // Hand-written checks of a few.
    let x: f64 = 0.45;
    let d = methods_of_floats::unary_derivatives(x, 11);
    let s = 1.0 - x * x;
    assert_near(d[1], 1.0 / s, 1e-14, 1.0, "atanh'");
    assert_near(d[2], 2.0 * x / (s * s), 1e-13, 1.0, "atanh''");
    let d = methods_of_floats::unary_derivatives(x, 23);
    assert_near(d[2], -2.0 / 9.0 * x.powf(-5.0 / 3.0), 1e-13, 1.0, "cbrt''");
    let d = methods_of_floats::unary_derivatives(x, 21);
    assert_near(d[3], 2.5 * 1.5 * 0.5 * x.powf(-0.5), 1e-13, 1.0, "powf'''");
}

#[test]
fn two_argument_float_methods_hessians() {
    let mut rng = Lcg::new(2107);
    for _ in 0..10 {
        let x = rng.uniform(0.3, 0.9);
        let y = rng.uniform(1.2, 2.0);
        for k in 0..8 {
            let (_, (gx, gy)) = methods_of_floats::binary_grad(x, y, k);
            fd_check(
                &format!("binary {k}"),
                &|z| methods_of_floats::binary(z[0], z[1], k),
                &[x, y],
                &[gx, gy],
            );
            let (_, _, h) = methods_of_floats::binary_hessian(x, y, k);
            hess_check(
                &format!("binary {k} h"),
                &|z| {
                    let (_, (a, b)) = methods_of_floats::binary_grad(z[0], z[1], k);
                    vec![a, b]
                },
                &[x, y],
                &h,
            );
        }
        // powf by hand: d/dy x^y = x^y ln x, d²/dxdy = x^(y-1) (1 + y ln x).
        let (_, _, h) = methods_of_floats::binary_hessian(x, y, 2);
        assert_near(
            h[0][1],
            x.powf(y - 1.0) * (1.0 + y * x.ln()),
            1e-12,
            1.0,
            "powf xy",
        );
        assert_near(h[1][1], x.powf(y) * x.ln().powi(2), 1e-12, 1.0, "powf yy");
    }
}

// ---- f_grad_into, output parameters, f_jacobian ----

mod outputs {
    use autodiff::differentiable;

    #[differentiable]
    pub fn scale(a: f64, x: &[f64], n: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..n {
            s += a * x[i] * x[i];
        }
        s
    }

    #[differentiable]
    pub fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
        dydt[0] = p[0] * y[0] - y[0] * y[1];
        dydt[1] = y[0] * y[1] - p[1] * y[1];
    }

    #[differentiable(order = 2)]
    pub fn residual(x: &[f64], r: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            r[i] = x[i].sin() - 0.5;
            s += r[i] * r[i];
        }
        s
    }

    #[differentiable]
    pub fn accumulate(x: &[f64], acc: &mut [f64]) {
        for i in 0..x.len() {
            acc[i] = acc[i] * x[i] + x[i];
        }
    }

    #[differentiable]
    pub fn to_array(x: f64, out: &mut [f64; 2]) {
        out[0] = x.cos();
        out[1] = x * x;
    }

    #[differentiable]
    pub fn to_scalar(x: &[f64], out: &mut f64) {
        *out = x[0] * x[1];
    }

    #[differentiable]
    pub fn polar(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }

    #[differentiable]
    pub fn softmax(x: &[f64]) -> Vec<f64> {
        let mut m = x[0];
        for &v in x {
            m = m.max(v);
        }
        let mut e = vec![0.0; x.len()];
        let mut s = 0.0;
        for i in 0..x.len() {
            e[i] = (x[i] - m).exp();
            s += e[i];
        }
        for i in 0..x.len() {
            e[i] /= s;
        }
        e
    }

    #[differentiable(order = 2)]
    pub fn weighted(x: [f64; 3], w: &[f64; 3]) -> f64 {
        let mut s = 0.0;
        for i in 0..3 {
            s += w[i] * x[i].exp();
        }
        s.ln()
    }
}

#[test]
fn grad_into_output_parameters_and_jacobians() {
    let mut rng = Lcg::new(2108);
    for _ in 0..8 {
        let a = rng.uniform(-2.0, 2.0);
        let x = rng.vec(4, -1.0, 1.0);
        let mut ga = f64::NAN;
        let mut gx = vec![f64::NAN; 4];
        let v: f64 = outputs::scale_grad_into(a, &x, 3, (&mut ga, &mut gx));
        let (v2, (ga2, gx2)): (f64, (f64, Vec<f64>)) = outputs::scale_grad(a, &x, 3);
        assert_eq!(v, v2);
        assert_eq!(ga, ga2);
        assert_eq!(gx, gx2);
        assert_near(
            ga,
            x[..3].iter().map(|v| v * v).sum::<f64>(),
            1e-12,
            1.0,
            "scale a",
        );
        assert_vec_near(
            &gx,
            &[2.0 * a * x[0], 2.0 * a * x[1], 2.0 * a * x[2], 0.0],
            1e-12,
            "sx",
        );

        // Lotka–Volterra right-hand side.
        let y = rng.vec(2, 0.5, 1.5);
        let p = rng.vec(2, 0.5, 1.5);
        let mut dydt = vec![f64::NAN; 2];
        let d_out = rng.vec(2, -1.0, 1.0);
        let (gy, gp): (Vec<f64>, Vec<f64>) = outputs::rhs_vjp(&y, &p, &mut dydt, &d_out);
        let mut plain = vec![0.0; 2];
        outputs::rhs(&y, &p, &mut plain);
        assert_eq!(dydt, plain);
        // J = [[p0 - y1, -y0, y0, 0], [y1, y0 - p1, 0, -y1]].
        let jac: Vec<Vec<f64>> = outputs::rhs_jacobian(&y, &p, &mut dydt);
        let e = [
            [p[0] - y[1], -y[0], y[0], 0.0],
            [y[1], y[0] - p[1], 0.0, -y[1]],
        ];
        for i in 0..2 {
            for j in 0..4 {
                assert_near(jac[i][j], e[i][j], 1e-12, 1.0, "rhs jac");
            }
        }
        for j in 0..4 {
            let e: f64 = (0..2).map(|i| d_out[i] * jac[i][j]).sum();
            let got = if j < 2 { gy[j] } else { gp[j - 2] };
            assert_near(got, e, 1e-12, 1.0, "rhs vjp");
        }
        let ty = rng.vec(2, -1.0, 1.0);
        let tp = rng.vec(2, -1.0, 1.0);
        let mut d_dydt = vec![f64::NAN; 2];
        let () = outputs::rhs_jvp(&y, &p, &mut dydt, (ty.clone(), tp.clone()), &mut d_dydt);
        for i in 0..2 {
            let t = [ty[0], ty[1], tp[0], tp[1]];
            let e: f64 = (0..4).map(|j| jac[i][j] * t[j]).sum();
            assert_near(d_dydt[i], e, 1e-12, 1.0, "rhs jvp");
        }

        // An output parameter beside a float result.
        let mut r = vec![f64::NAN; 4];
        let (s, g): (f64, Vec<f64>) = outputs::residual_grad(&x, &mut r);
        let e: Vec<f64> = x.iter().map(|v| 2.0 * (v.sin() - 0.5) * v.cos()).collect();
        assert_vec_near(&g, &e, 1e-12, "residual grad");
        assert_near(r[1], x[1].sin() - 0.5, 1e-14, 1.0, "residual out");
        let dr = rng.vec(4, -1.0, 1.0);
        let (s2, g2): (f64, Vec<f64>) = outputs::residual_vjp(&x, &mut r, 0.5, &dr);
        assert_eq!(s, s2);
        for i in 0..4 {
            let e = (0.5 * 2.0 * (x[i].sin() - 0.5) + dr[i]) * x[i].cos();
            assert_near(g2[i], e, 1e-12, 1.0, "residual vjp");
        }
        let (_, _, h) = outputs::residual_hessian(&x, &mut r);
        hess_check(
            "residual h",
            &|z| outputs::residual_grad(z, &mut [0.0; 4]).1,
            &x,
            &h,
        );

        // An output read before written is also an input.
        let mut acc = rng.vec(4, -1.0, 1.0);
        let acc0 = acc.clone();
        let d = rng.vec(4, -1.0, 1.0);
        let (gx, gacc): (Vec<f64>, Vec<f64>) = outputs::accumulate_vjp(&x, &mut acc, &d);
        for i in 0..4 {
            assert_near(acc[i], acc0[i] * x[i] + x[i], 1e-14, 1.0, "acc out");
            assert_near(gx[i], d[i] * (acc0[i] + 1.0), 1e-12, 1.0, "acc x");
            assert_near(gacc[i], d[i] * x[i], 1e-12, 1.0, "acc acc");
        }

        let t = rng.uniform(-2.0, 2.0);
        let mut out = [f64::NAN; 2];
        let jac = outputs::to_array_jacobian(t, &mut out);
        assert_eq!(jac.len(), 2);
        assert_near(jac[0][0], -t.sin(), 1e-12, 1.0, "to_array");
        assert_near(jac[1][0], 2.0 * t, 1e-12, 1.0, "to_array");
        let g: f64 = outputs::to_array_vjp(t, &mut out, &[1.0, 2.0]);
        assert_near(g, -t.sin() + 4.0 * t, 1e-12, 1.0, "to_array vjp");

        let mut o = f64::NAN;
        let g: Vec<f64> = outputs::to_scalar_vjp(&x, &mut o, 2.0);
        assert_eq!(o, x[0] * x[1]);
        assert_vec_near(&g, &[2.0 * x[1], 2.0 * x[0], 0.0, 0.0], 1e-12, "to_scalar");

        let (rr, tt) = (rng.uniform(0.5, 2.0), rng.uniform(-3.0, 3.0));
        let (v, (dr, dt)): ((f64, f64), (f64, f64)) = outputs::polar_vjp(rr, tt, (1.0, 0.5));
        assert_eq!(v, outputs::polar(rr, tt));
        assert_near(dr, tt.cos() + 0.5 * tt.sin(), 1e-12, 1.0, "polar r");
        assert_near(
            dt,
            -rr * tt.sin() + 0.5 * rr * tt.cos(),
            1e-12,
            1.0,
            "polar t",
        );
        let (_, tan): ((f64, f64), (f64, f64)) = outputs::polar_jvp(rr, tt, (1.0, 0.0));
        assert_near(tan.1, tt.sin(), 1e-12, 1.0, "polar jvp");

        let jac = outputs::softmax_jacobian(&x);
        let sm = outputs::softmax(&x);
        for i in 0..4 {
            for j in 0..4 {
                let e = sm[i] * (if i == j { 1.0 } else { 0.0 } - sm[j]);
                assert_near(jac[i][j], e, 1e-12, 1.0, "softmax jac");
            }
        }

        let xa = [x[0], x[1], x[2]];
        let w = [1.0 + x[3].abs(), 0.5, 2.0];
        let mut gxa = [f64::NAN; 3];
        let mut gw = [f64::NAN; 3];
        let v: f64 = outputs::weighted_grad_into(xa, &w, (&mut gxa, &mut gw));
        let (v2, (gxa2, gw2)): (f64, ([f64; 3], [f64; 3])) = outputs::weighted_grad(xa, &w);
        assert_eq!((v, gxa, gw), (v2, gxa2, gw2));
        let s: f64 = (0..3).map(|i| w[i] * xa[i].exp()).sum();
        for i in 0..3 {
            assert_near(gxa[i], w[i] * xa[i].exp() / s, 1e-12, 1.0, "weighted x");
            assert_near(gw[i], xa[i].exp() / s, 1e-12, 1.0, "weighted w");
        }
        let (_, _, h) = outputs::weighted_hessian(xa, &w);
        let z = [xa[0], xa[1], xa[2], w[0], w[1], w[2]];
        hess_check(
            "weighted h",
            &|z| {
                let (_, (a, b)) = outputs::weighted_grad([z[0], z[1], z[2]], &[z[3], z[4], z[5]]);
                [a.to_vec(), b.to_vec()].concat()
            },
            &z,
            &h,
        );
        let (_, _, hv): (f64, ([f64; 3], [f64; 3]), ([f64; 3], [f64; 3])) =
            outputs::weighted_hvp(xa, &w, ([1.0, 0.0, 0.0], [0.0; 3]));
        for i in 0..3 {
            assert_near(hv.0[i], h[i][0], 1e-12, 1.0, "weighted hvp");
            assert_near(hv.1[i], h[3 + i][0], 1e-12, 1.0, "weighted hvp w");
        }
    }
}

// ---- methods and Differentiable structs ----

mod model {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Mlp {
        pub w1: Vec<f64>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
        #[no_grad]
        pub hidden: usize,
    }

    #[differentiable(wrt(p), order = 2)]
    pub fn mse(p: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for k in 0..xs.len() {
            let mut out = p.b2;
            for h in 0..p.hidden {
                let z = p.w1[h] * xs[k] + p.b1[h];
                out += p.w2[h] * z.tanh();
            }
            let e = out - ys[k];
            loss += e * e;
        }
        loss / xs.len() as f64
    }

    impl Mlp {
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
            mse(self, xs, ys)
        }

        #[differentiable(order = 3)]
        pub fn predict(&self, x: f64) -> f64 {
            let mut out = self.b2;
            for h in 0..self.hidden {
                out += self.w2[h] * (self.w1[h] * x + self.b1[h]).tanh();
            }
            out
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Point {
        pub x: f64,
        pub y: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Spring {
        pub k: f64,
        pub rest: [f64; 2],
        pub anchor: Point,
    }

    impl Spring {
        #[differentiable(wrt(self, q), order = 2)]
        pub fn energy(&self, q: [f64; 2]) -> f64 {
            let dx = q[0] - self.anchor.x - self.rest[0];
            let dy = q[1] - self.anchor.y - self.rest[1];
            0.5 * self.k * (dx * dx + dy * dy)
        }

        #[differentiable(wrt(self))]
        pub fn stretch(self) -> f64 {
            (self.rest[0] * self.rest[0] + self.rest[1] * self.rest[1]).sqrt() * self.k
        }

        #[differentiable(order = 2)]
        pub fn helper(a: f64, b: f64) -> f64 {
            a * b.exp()
        }

        #[differentiable(order = 2)]
        pub fn assoc(a: f64, b: f64) -> f64 {
            Self::helper(a, b) * a
        }

        #[differentiable]
        pub fn moved(&self, x: &[f64]) -> Vec<f64> {
            vec![x[0] * self.k + self.anchor.x, x[1] * x[0] + self.anchor.y]
        }

        #[differentiable(order = 2)]
        pub fn through_method(&self, q: [f64; 2]) -> f64 {
            self.energy(q) * q[0]
        }
    }

    pub struct Scaled<T> {
        pub s: T,
    }

    impl<T: Float> Scaled<T> {
        #[differentiable(order = 2)]
        pub fn wave(&self, x: T) -> T {
            self.s * x.sin()
        }
    }
}

#[test]
fn mlp_struct_gradients_hessian_optimiser_and_flat_view() {
    use autodiff::optim::{Lbfgs, Minimizer};
    use model::Mlp;
    let mut rng = Lcg::new(2109);
    let p = Mlp {
        w1: rng.vec(3, -1.0, 1.0),
        b1: rng.vec(3, -1.0, 1.0),
        w2: rng.vec(3, -1.0, 1.0),
        b2: 0.1,
        hidden: 3,
    };
    let xs = rng.vec(6, -1.0, 1.0);
    let ys: Vec<f64> = xs.iter().map(|x| (2.0 * x).sin()).collect();

    let (v, g): (f64, Mlp) = model::mse_grad(&p, &xs, &ys);
    assert_eq!(v, model::mse(&p, &xs, &ys));
    assert_eq!(g.hidden, 3);
    let (v2, g2): (f64, Mlp) = p.loss_grad(&xs, &ys);
    assert_eq!(v, v2);
    assert_eq!(g.to_flat(), g2.to_flat());
    let flat_p = p.to_flat();
    assert_eq!(flat_p.len(), 10);
    let check = check_gradient(
        |f| model::mse(&p.from_flat(f), &xs, &ys),
        &flat_p,
        &g.to_flat(),
    );
    assert!(check.is_ok(1e-6), "{check:?}");
    let check = check_gradient_of(|q: &Mlp| q.loss(&xs, &ys), &p, &g2);
    assert!(check.is_ok(1e-6), "{check:?}");

    // b2's gradient by hand: 2/n Σ e.
    let mut e = 0.0;
    for k in 0..6 {
        e += 2.0 * (p.predict(xs[k]) - ys[k]) / 6.0;
    }
    assert_near(g.b2, e, 1e-12, 1.0, "b2");

    let (_, _, h): (f64, Mlp, Vec<Vec<f64>>) = model::mse_hessian(&p, &xs, &ys);
    assert_eq!(h.len(), 10);
    hess_check(
        "mse h",
        &|z| model::mse_grad(&p.from_flat(z), &xs, &ys).1.to_flat(),
        &flat_p,
        &h,
    );
    let (_, _, h2) = p.loss_hessian(&xs, &ys);
    assert_eq!(h, h2);
    let mut dir = p.zero_like();
    assert!(dir.to_flat().iter().all(|&v| v == 0.0));
    dir.b2 = 1.0;
    dir.w1[1] = 0.5;
    let (_, _, hv): (f64, Mlp, Mlp) = model::mse_hvp(&p, &xs, &ys, dir.clone());
    let dflat = dir.to_flat();
    for i in 0..10 {
        let e: f64 = (0..10).map(|j| h[i][j] * dflat[j]).sum();
        assert_near(hv.to_flat()[i], e, 1e-10, 1.0, "mse hvp");
    }
    let mut sum = g.clone();
    sum.add_assign(&g);
    sum.scale(0.5);
    assert_eq!(sum.to_flat(), g.to_flat());

    // Derivatives of the prediction in x, self constant.
    for &x in &xs {
        let d: [f64; 4] = p.predict_derivatives(x);
        assert_near(d[1], fd1(&|t| p.predict(t), x, 1e-6), 1e-8, 1.0, "predict'");
        assert_near(
            d[2],
            fd1(&|t| p.predict_grad(t).1, x, 1e-6),
            1e-7,
            1.0,
            "predict''",
        );
        assert_near(
            d[3],
            fd1(&|t| p.predict_derivatives(t)[2], x, 1e-6),
            1e-6,
            1.0,
            "'''",
        );
    }

    // `f_grad_into` over a struct writes every differentiable field and copies the `#[no_grad]` ones.
    let mut gi = p.from_flat(&[f64::NAN; 10]);
    gi.hidden = 0;
    let vi: f64 = p.loss_grad_into(&xs, &ys, &mut gi);
    assert_eq!(vi, v);
    assert_eq!(gi.to_flat(), g.to_flat());
    // `f_jvp` with a struct tangent is the gradient's inner product with it.
    let (vj, tj): (f64, f64) = model::mse_jvp(&p, &xs, &ys, dir.clone());
    assert_eq!(vj, v);
    assert_near(tj, dot(&g.to_flat(), &dflat), 1e-12, 1.0, "mse jvp");
    // `f_vjp` scales.
    let (_, gv): (f64, Mlp) = model::mse_vjp(&p, &xs, &ys, 2.0);
    assert_vec_near(
        &gv.to_flat(),
        &g.to_flat().iter().map(|a| 2.0 * a).collect::<Vec<_>>(),
        1e-14,
        "mse vjp",
    );

    let (q, minimum) = Lbfgs::default().minimize_params(|q: &Mlp| q.loss_grad(&xs, &ys), &p);
    assert!(minimum.value < v, "{minimum:?}");
    assert_eq!(q.hidden, 3);
    assert_near(q.loss(&xs, &ys), minimum.value, 1e-12, 1.0, "minimum");
}

#[test]
fn struct_methods_wrt_self_and_inputs_and_associated_functions() {
    use model::{Point, Scaled, Spring};
    let mut rng = Lcg::new(2110);
    for _ in 0..8 {
        let s = Spring {
            k: rng.uniform(0.5, 2.0),
            rest: [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            anchor: Point {
                x: rng.uniform(-1.0, 1.0),
                y: rng.uniform(-1.0, 1.0),
            },
        };
        let q = [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)];
        let (v, (gs, gq)): (f64, (Spring, [f64; 2])) = s.energy_grad(q);
        assert_eq!(v, s.energy(q));
        let dx = q[0] - s.anchor.x - s.rest[0];
        let dy = q[1] - s.anchor.y - s.rest[1];
        assert_near(gs.k, 0.5 * (dx * dx + dy * dy), 1e-12, 1.0, "k");
        assert_near(gs.rest[0], -s.k * dx, 1e-12, 1.0, "rest0");
        assert_near(gs.anchor.y, -s.k * dy, 1e-12, 1.0, "anchor y");
        assert_near(gq[0], s.k * dx, 1e-12, 1.0, "q0");
        let flat_s = s.to_flat();
        assert_eq!(
            flat_s,
            vec![s.k, s.rest[0], s.rest[1], s.anchor.x, s.anchor.y]
        );
        let (_, _, h) = s.energy_hessian(q);
        assert_eq!(h.len(), 7);
        let z = [flat_s.clone(), q.to_vec()].concat();
        hess_check(
            "energy h",
            &|z| {
                let (_, (a, b)) = s.from_flat(&z[..5]).energy_grad([z[5], z[6]]);
                [a.to_flat(), b.to_vec()].concat()
            },
            &z,
            &h,
        );

        let (_, g): (f64, Spring) = s.clone().stretch_grad();
        let n = (s.rest[0].powi(2) + s.rest[1].powi(2)).sqrt();
        assert_near(g.k, n, 1e-12, 1.0, "stretch k");
        assert_near(g.rest[1], s.k * s.rest[1] / n, 1e-12, 1.0, "stretch rest");
        assert_eq!(g.anchor.x, 0.0);

        let (a, b) = (q[0], q[1]);
        let (_, (ga, gb)): (f64, (f64, f64)) = Spring::assoc_grad(a, b);
        assert_near(ga, 2.0 * a * b.exp(), 1e-12, 1.0, "assoc a");
        assert_near(gb, a * a * b.exp(), 1e-12, 1.0, "assoc b");
        let (_, _, h) = Spring::assoc_hessian(a, b);
        assert_near(h[0][0], 2.0 * b.exp(), 1e-12, 1.0, "assoc aa");
        assert_near(h[0][1], 2.0 * a * b.exp(), 1e-12, 1.0, "assoc ab");

        let jac: Vec<Vec<f64>> = s.moved_jacobian(&q);
        assert_near(jac[0][0], s.k, 1e-12, 1.0, "moved");
        assert_near(jac[1][0], q[1], 1e-12, 1.0, "moved");
        assert_near(jac[1][1], q[0], 1e-12, 1.0, "moved");

        let (_, g) = s.through_method_grad(q);
        fd_check(
            "through_method",
            &|z| s.through_method([z[0], z[1]]),
            &q,
            &g,
        );
        let (_, _, h) = s.through_method_hessian(q);
        hess_check(
            "through_method h",
            &|z| s.through_method_grad([z[0], z[1]]).1.to_vec(),
            &q,
            &h,
        );

        // The Jacobian of a method over its active inputs (self is constant here).
        let cols = fd_columns(&|z| s.moved(z), &q);
        for i in 0..2 {
            for j in 0..2 {
                assert_near(jac[i][j], cols[j][i], 1e-7, 1.0, "moved fd");
            }
        }
        let mut gs_into = s.zero_like();
        let mut gq_into = [f64::NAN; 2];
        let e: f64 = s.energy_grad_into(q, (&mut gs_into, &mut gq_into));
        assert_eq!(e, s.energy(q));
        assert_eq!(gs_into.to_flat(), gs.to_flat());
        assert_eq!(gq_into, gq);
        let check = check_gradient_of(|t: &Spring| t.energy(q), &s, &gs);
        assert!(check.is_ok(1e-6), "{check:?}");

        let w = Scaled { s: s.k };
        let d: [f64; 3] = w.wave_derivatives(a);
        assert_vec_near(
            &d,
            &[s.k * a.sin(), s.k * a.cos(), -s.k * a.sin()],
            1e-12,
            "wave",
        );
    }
}

// ---- custom and registered gradients at higher order ----

mod custom {
    use autodiff::{custom_gradient, differentiable, gradient_of};

    #[custom_gradient]
    pub fn softclip(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let t = x.tanh();
        (2.0 * t, move |dy| dy * 2.0 * (1.0 - t * t))
    }

    #[custom_gradient]
    pub fn wmul(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let e = y.exp();
        (x * e, move |dy| (dy * e, dy * x * e))
    }

    #[differentiable(order = 3)]
    pub fn use_clip(x: f64) -> f64 {
        softclip(x) * x
    }

    #[differentiable(order = 2)]
    pub fn use_wmul(x: f64, y: f64) -> f64 {
        wmul(x * x, y) + wmul(y, x)
    }

    pub mod outside {
        pub fn gauss(x: f64) -> f64 {
            (-x * x).exp()
        }
    }

    use outside::gauss;

    #[gradient_of(outside::gauss)]
    pub fn gauss_vjp(x: f64, dy: f64) -> f64 {
        dy * -2.0 * x * (-x * x).exp()
    }

    #[differentiable(order = 3)]
    pub fn use_gauss(x: f64) -> f64 {
        gauss(x) * x.sin() + outside::gauss(2.0 * x)
    }

    #[differentiable(order = 2)]
    pub fn custom_in_loop(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += softclip(v) * gauss(v);
        }
        s
    }
}

#[test]
fn custom_and_registered_gradients_at_higher_order() {
    let mut rng = Lcg::new(2111);
    for _ in 0..10 {
        let x = rng.uniform(-2.0, 2.0);
        let y = rng.uniform(-1.0, 1.0);
        let (v, g): (f64, f64) = custom::softclip_grad(x);
        assert_eq!(v, custom::softclip(x));
        let t = x.tanh();
        assert_near(g, 2.0 * (1.0 - t * t), 1e-12, 1.0, "softclip grad");
        let (_, j): (f64, f64) = custom::softclip_jvp(x, 0.5);
        assert_near(j, 1.0 - t * t, 1e-12, 1.0, "softclip jvp");
        let (_, vj): (f64, f64) = custom::softclip_vjp(x, 3.0);
        assert_near(vj, 6.0 * (1.0 - t * t), 1e-12, 1.0, "softclip vjp");

        // F = 2 t x: F' = 2 t + 2 x s, F'' = 4 s - 4 x t s, F''' = -12 t s + 4 x s (3t² - 1) with s = 1 - t².
        let s = 1.0 - t * t;
        let d: [f64; 4] = custom::use_clip_derivatives(x);
        assert_near(d[0], 2.0 * t * x, 1e-12, 1.0, "use_clip");
        assert_near(d[1], 2.0 * t + 2.0 * x * s, 1e-12, 1.0, "use_clip'");
        assert_near(d[2], 4.0 * s - 4.0 * x * t * s, 1e-12, 1.0, "use_clip''");
        let e3 = -12.0 * t * s + 4.0 * x * s * (3.0 * t * t - 1.0);
        assert_near(d[3], e3, 1e-11, 1.0, "use_clip'''");

        let (_, (gx, gy)): (f64, (f64, f64)) = custom::use_wmul_grad(x, y);
        fd_check(
            "use_wmul",
            &|z| custom::use_wmul(z[0], z[1]),
            &[x, y],
            &[gx, gy],
        );
        let (_, _, h) = custom::use_wmul_hessian(x, y);
        hess_check(
            "use_wmul h",
            &|z| {
                let (_, (a, b)) = custom::use_wmul_grad(z[0], z[1]);
                vec![a, b]
            },
            &[x, y],
            &h,
        );
        // x² eʸ + y eˣ: h = [[2eʸ + y eˣ, 2x eʸ + eˣ], [.., x² eʸ]].
        assert_near(h[0][0], 2.0 * y.exp() + y * x.exp(), 1e-12, 1.0, "wmul xx");
        assert_near(h[0][1], 2.0 * x * y.exp() + x.exp(), 1e-12, 1.0, "wmul xy");
        assert_near(h[1][1], x * x * y.exp(), 1e-12, 1.0, "wmul yy");

        let d = custom::use_gauss_derivatives(x);
        let f = |t: f64| (-t * t).exp() * t.sin() + (-4.0 * t * t).exp();
        assert_near(d[0], f(x), 1e-14, 1.0, "use_gauss");
        assert_near(d[1], fd1(&f, x, 1e-6), 1e-8, 1.0, "use_gauss'");
        let d1 = |t: f64| custom::use_gauss_derivatives(t)[1];
        assert_near(d[2], fd1(&d1, x, 1e-6), 1e-7, 1.0, "use_gauss''");
        let d2 = |t: f64| custom::use_gauss_derivatives(t)[2];
        assert_near(d[3], fd1(&d2, x, 1e-6), 1e-6, 1.0, "use_gauss'''");

        let v = rng.vec(4, -1.5, 1.5);
        let (_, g) = custom::custom_in_loop_grad(&v);
        fd_check("custom_in_loop", &|z| custom::custom_in_loop(z), &v, &g);
        let (_, _, h) = custom::custom_in_loop_hessian(&v);
        hess_check(
            "custom_in_loop h",
            &|z| custom::custom_in_loop_grad(z).1,
            &v,
            &h,
        );
        let (_, _, hv) = custom::custom_in_loop_hvp(&v, vec![1.0, 2.0, 0.0, -1.0]);
        for i in 0..4 {
            let e = dot(&h[i], &[1.0, 2.0, 0.0, -1.0]);
            assert_near(hv[i], e, 1e-12, 1.0, "custom_in_loop hvp");
        }
    }
}

// ---- forms a user writes beyond the list, which work: checked so they keep working ----

mod beyond {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn filtered(x: &[f64]) -> f64 {
        x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum()
    }

    #[differentiable(order = 2)]
    pub fn collected(x: &[f64]) -> f64 {
        let e: Vec<f64> = x.iter().map(|v| v.exp()).collect();
        e[0] * e[1]
    }

    #[differentiable(order = 2)]
    pub fn fold_max(x: &[f64]) -> f64 {
        x.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
    }

    #[differentiable(order = 2)]
    pub fn range_map(x: &[f64], w: &[f64]) -> f64 {
        (0..x.len()).map(|i| x[i] * w[i]).sum()
    }

    #[differentiable(order = 2)]
    pub fn rev_ranked(x: &[f64]) -> f64 {
        x.iter().rev().enumerate().map(|(i, v)| i as f64 * v).sum()
    }

    #[differentiable(order = 2)]
    pub fn ufcs(x: f64, y: f64) -> f64 {
        f64::max(x, y) + f64::sqrt(x * x + 1.0)
    }

    #[differentiable(order = 2)]
    pub fn mean(x: &[f64]) -> f64 {
        x.iter().sum::<f64>() / x.len() as f64
    }

    #[differentiable(order = 2)]
    pub fn powi_n(x: f64, n: usize) -> f64 {
        x.powi(n as i32)
    }

    #[differentiable(order = 2)]
    pub fn array_pattern(p: [f64; 2]) -> f64 {
        let [a, b] = p;
        a * b
    }

    #[differentiable(order = 2)]
    pub fn ref_pattern(x: &[f64]) -> f64 {
        x.iter().map(|&v| v * 2.0).sum()
    }

    #[differentiable(order = 2)]
    pub fn windowed(x: &[f64]) -> f64 {
        x.windows(2).map(|w| w[1] - w[0]).map(|d| d * d).sum()
    }

    #[differentiable(order = 2)]
    pub fn skip_take(x: &[f64]) -> f64 {
        x.iter().skip(1).take(2).map(|v| v.sin()).sum()
    }

    #[differentiable(order = 2)]
    pub fn more_consts(x: f64) -> f64 {
        x * std::f64::consts::E + core::f64::consts::LN_2 * f64::MAX.min(x)
    }

    #[differentiable(order = 2)]
    pub fn to_vec_written(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v[0] *= 2.0;
        v[0] * v[1]
    }

    #[differentiable(order = 2)]
    pub fn pushed(x: f64) -> f64 {
        let mut v = Vec::new();
        v.push(x * x);
        v.push(x);
        v[0] + v[1]
    }

    #[differentiable(order = 2)]
    pub fn distance(x: &[f64], y: &[f64]) -> f64 {
        x.iter()
            .zip(y)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    #[differentiable(order = 2)]
    pub fn chunked(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for c in x.chunks(2) {
            s += c[0] * c[1];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn closure_of_closure(x: f64) -> f64 {
        let f = |v: f64| v * v;
        let g = |v: f64| f(v) + v;
        g(x) * f(x)
    }

    #[differentiable(order = 2)]
    pub fn row_products(m: &[Vec<f64>]) -> f64 {
        m.iter().map(|r| r.iter().product::<f64>()).sum()
    }

    #[differentiable(order = 2)]
    pub fn tuple_if(x: f64) -> f64 {
        let (a, b) = if x > 0.0 { (x, 1.0) } else { (1.0, x) };
        a * b
    }

    #[differentiable(order = 2)]
    pub fn loop_value(x: f64) -> f64 {
        let mut i = 0;
        let y = loop {
            i += 1;
            if i > 3 {
                break x * i as f64;
            }
        };
        y * x
    }

    #[differentiable(order = 2)]
    pub fn by_value_vec(x: Vec<f64>) -> f64 {
        let mut x = x;
        x[0] = x[0] * x[1];
        x.iter().sum()
    }
}

/// Checks a function of a flat vector: its gradient against central differences, its Hessian against
/// central differences of the gradient.
#[track_caller]
fn flat_check(
    what: &str,
    f: &dyn Fn(&[f64]) -> f64,
    g: &dyn Fn(&[f64]) -> Vec<f64>,
    h: &dyn Fn(&[f64]) -> Vec<Vec<f64>>,
    x: &[f64],
) {
    fd_check(what, f, x, &g(x));
    hess_check(what, g, x, &h(x));
}

#[test]
fn forms_beyond_the_list_gradients_and_hessians() {
    use beyond::*;
    let mut rng = Lcg::new(2112);
    for _ in 0..8 {
        let x = rng.vec(4, -1.0, 1.0);
        macro_rules! slice_fn {
            ($f:ident, $g:ident, $h:ident) => {
                flat_check(stringify!($f), &|z| $f(z), &|z| $g(z).1, &|z| $h(z).2, &x)
            };
        }
        slice_fn!(filtered, filtered_grad, filtered_hessian);
        slice_fn!(collected, collected_grad, collected_hessian);
        slice_fn!(fold_max, fold_max_grad, fold_max_hessian);
        slice_fn!(rev_ranked, rev_ranked_grad, rev_ranked_hessian);
        slice_fn!(mean, mean_grad, mean_hessian);
        slice_fn!(ref_pattern, ref_pattern_grad, ref_pattern_hessian);
        slice_fn!(windowed, windowed_grad, windowed_hessian);
        slice_fn!(skip_take, skip_take_grad, skip_take_hessian);
        slice_fn!(to_vec_written, to_vec_written_grad, to_vec_written_hessian);
        slice_fn!(chunked, chunked_grad, chunked_hessian);
        let (v, g) = fold_max_grad(&x);
        let i = (0..4).fold(0, |b, i| if x[i] > x[b] { i } else { b });
        assert_eq!(v, x[i]);
        assert_eq!(g.iter().sum::<f64>(), 1.0);
        assert_eq!(g[i], 1.0);
        let (_, g) = rev_ranked_grad(&x);
        assert_eq!(g, vec![3.0, 2.0, 1.0, 0.0]);

        let pair = |z: &[f64]| (z[..2].to_vec(), z[2..].to_vec());
        flat_check(
            "range_map",
            &|z| range_map(&pair(z).0, &pair(z).1),
            &|z| {
                let (_, (a, b)) = range_map_grad(&pair(z).0, &pair(z).1);
                [a, b].concat()
            },
            &|z| range_map_hessian(&pair(z).0, &pair(z).1).2,
            &x,
        );
        flat_check(
            "distance",
            &|z| distance(&pair(z).0, &pair(z).1),
            &|z| {
                let (_, (a, b)) = distance_grad(&pair(z).0, &pair(z).1);
                [a, b].concat()
            },
            &|z| distance_hessian(&pair(z).0, &pair(z).1).2,
            &x,
        );
        flat_check(
            "by_value_vec",
            &|z| by_value_vec(z.to_vec()),
            &|z| by_value_vec_grad(z.to_vec()).1,
            &|z| by_value_vec_hessian(z.to_vec()).2,
            &x,
        );
        flat_check(
            "row_products",
            &|z| row_products(&rows(z, 2)),
            &|z| flat(&row_products_grad(&rows(z, 2)).1),
            &|z| row_products_hessian(&rows(z, 2)).2,
            &x,
        );
        flat_check(
            "ufcs",
            &|z| ufcs(z[0], z[1]),
            &|z| {
                let (_, (a, b)) = ufcs_grad(z[0], z[1]);
                vec![a, b]
            },
            &|z| ufcs_hessian(z[0], z[1]).2,
            &x[..2],
        );
        flat_check(
            "array_pattern",
            &|z| array_pattern([z[0], z[1]]),
            &|z| array_pattern_grad([z[0], z[1]]).1.to_vec(),
            &|z| array_pattern_hessian([z[0], z[1]]).2,
            &x[..2],
        );
        macro_rules! scalar_fn {
            ($f:expr, $g:expr, $h:expr) => {
                flat_check(
                    stringify!($f),
                    &|z| $f(z[0]),
                    &|z| vec![$g(z[0]).1],
                    &|z| $h(z[0]).2,
                    &x[..1],
                )
            };
        }
        scalar_fn!(more_consts, more_consts_grad, more_consts_hessian);
        scalar_fn!(pushed, pushed_grad, pushed_hessian);
        scalar_fn!(|t| powi_n(t, 3), |t| powi_n_grad(t, 3), |t| powi_n_hessian(
            t, 3
        ));
        scalar_fn!(
            closure_of_closure,
            closure_of_closure_grad,
            closure_of_closure_hessian
        );
        scalar_fn!(tuple_if, tuple_if_grad, tuple_if_hessian);
        scalar_fn!(loop_value, loop_value_grad, loop_value_hessian);
        let t = x[0];
        assert_near(loop_value_grad(t).1, 8.0 * t, 1e-12, 1.0, "loop_value");
        assert_near(
            closure_of_closure_derivatives(t)[2],
            12.0 * t * t + 6.0 * t,
            1e-12,
            1.0,
            "closure_of_closure''",
        );
    }
}

// ---- JAX's conventions at non-differentiable points (DESIGN.md), at every order ----

mod kinks {
    use autodiff::{differentiable, stop_gradient};

    #[differentiable(order = 3)]
    pub fn kink(x: f64, m: usize) -> f64 {
        match m {
            0 => x.max(0.0),
            1 => x.min(0.0),
            2 => x.abs(),
            3 => x.powi(2),
            4 => x.clamp(0.0, 1.0),
            5 => x.max(x),
            6 => x * stop_gradient(x),
            7 => (-x * x).abs(),
            8 => x.signum() + x.floor() + x.ceil() + x.round() + x.trunc(),
            _ => x.sqrt(),
        }
    }

    #[differentiable(order = 2)]
    pub fn tie(x: f64, y: f64) -> f64 {
        x.min(y) * x
    }
}

#[test]
fn non_differentiable_points_follow_jax_at_every_order() {
    let expected: [[f64; 3]; 9] = [
        [0.0, 0.5, 0.0],
        [0.0, 0.5, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 2.0],
        [0.0, 0.5, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 2.0],
        [0.0, 0.0, 0.0],
    ];
    for (m, e) in expected.iter().enumerate() {
        let d: [f64; 4] = kinks::kink_derivatives(0.0, m);
        assert_eq!(d[1], e[1], "kink {m}'");
        assert_eq!(d[2], e[2], "kink {m}''");
        assert_eq!(d[3], 0.0, "kink {m}'''");
        assert_eq!(kinks::kink_grad(0.0, m).1, e[1], "kink {m} grad");
        assert_eq!(kinks::kink_jvp(0.0, m, 1.0).1, e[1], "kink {m} jvp");
        assert_eq!(
            kinks::kink_hessian(0.0, m).2[0][0],
            e[2],
            "kink {m} hessian"
        );
        assert_eq!(kinks::kink_hvp(0.0, m, 1.0).2, e[2], "kink {m} hvp");
    }
    // abs at -0.0 takes the sign bit.
    assert_eq!(kinks::kink_grad(-0.0, 2).1, -1.0);
    assert_eq!(kinks::kink_derivatives(0.0, 9)[1], f64::INFINITY);
    // min(x, y) x at a tie: ∂x = 0.5 x + min, and the Hessian [[1, 0.5], [0.5, 0]].
    let (_, g, h) = kinks::tie_hessian(0.0, 0.0);
    assert_eq!(g, (0.0, 0.0));
    assert_eq!(h, vec![vec![1.0, 0.5], vec![0.5, 0.0]]);
}

// ---- aliasing, recursion over sub-slices, closures over indices, `wrt`, f32 ----

mod edges {
    use crate::closures::squares;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn self_dot(x: &[f64]) -> f64 {
        crate::chains::zip_dot(x, x) + crate::chains::zip_dot(&x[1..], &x[..x.len() - 1])
    }

    #[differentiable(order = 2)]
    pub fn same_element_twice(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, &v) in x.iter().enumerate() {
            s += v * x[i] * x[(i + 1) % x.len()];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn sum_rec(x: &[f64]) -> f64 {
        if x.len() == 0 {
            return 0.0;
        }
        x[0] * x[0].cos() + sum_rec(&x[1..])
    }

    #[differentiable]
    pub fn prefix(x: &[f64], out: &mut [f64]) {
        out[0] = x[0];
        for i in 1..x.len() {
            out[i] = out[i - 1] * x[i];
        }
    }

    #[differentiable(order = 2)]
    pub fn through_prefix(x: &[f64]) -> f64 {
        let mut p = vec![0.0; x.len()];
        prefix(x, &mut p);
        let mut s = 0.0;
        for i in 0..p.len() {
            s += p[i];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn indexed_closure(x: &[f64], w: &[f64]) -> f64 {
        let at = |i: usize| x[i] * w[i];
        let mut s = 0.0;
        for i in 0..x.len() {
            s += at(i) * at((i + 1) % x.len());
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn by_value_array(mut x: [f64; 3]) -> f64 {
        x[0] = x[0] * x[1];
        x[2] += x[0];
        x[2] * x[1]
    }

    #[differentiable(wrt(a), order = 3)]
    pub fn only_a(a: f64, b: f64, xs: &[f64]) -> f64 {
        let mut s = 0.0;
        for &x in xs {
            s += (a * x + b).tanh();
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn nested_calling(x: f64, y: f64) -> f64 {
        // By its bare name: called by a path (`crate::closures::squares(u, v)`), `inner` gets no generic
        // copy, which this `order = 2` function needs (shadow.rs, `why_no_copy`; reported).
        fn inner(u: f64, v: f64) -> f64 {
            squares(u, v) + u.sin()
        }
        inner(x, y) * inner(y, x)
    }

    #[differentiable(order = 2)]
    pub fn single(x: &[f32]) -> f32 {
        let mut s = 0.0f32;
        for i in 0..x.len() {
            s += x[i].exp() * x[(i + 1) % x.len()];
        }
        s
    }
}

#[test]
fn aliasing_recursion_over_slices_and_constants() {
    let mut rng = Lcg::new(2113);
    for _ in 0..8 {
        let x = rng.vec(4, -1.0, 1.0);
        let w = rng.vec(4, -1.0, 1.0);
        let (_, g) = edges::self_dot_grad(&x);
        let mut e: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        for i in 0..4 {
            if i + 1 < 4 {
                e[i] += x[i + 1];
            }
            if i > 0 {
                e[i] += x[i - 1];
            }
        }
        assert_vec_near(&g, &e, 1e-12, "self_dot");
        let (_, _, h) = edges::self_dot_hessian(&x);
        hess_check("self_dot h", &|z| edges::self_dot_grad(z).1, &x, &h);

        let (_, g) = edges::same_element_twice_grad(&x);
        fd_check(
            "same_element_twice",
            &|z| edges::same_element_twice(z),
            &x,
            &g,
        );
        let (_, _, h) = edges::same_element_twice_hessian(&x);
        hess_check("same h", &|z| edges::same_element_twice_grad(z).1, &x, &h);

        let (v, g) = edges::sum_rec_grad(&x);
        assert_near(
            v,
            x.iter().map(|a| a * a.cos()).sum::<f64>(),
            1e-14,
            1.0,
            "sum_rec",
        );
        let e: Vec<f64> = x.iter().map(|a| a.cos() - a * a.sin()).collect();
        assert_vec_near(&g, &e, 1e-12, "sum_rec");
        let (_, _, h) = edges::sum_rec_hessian(&x);
        for i in 0..4 {
            assert_near(
                h[i][i],
                -2.0 * x[i].sin() - x[i] * x[i].cos(),
                1e-12,
                1.0,
                "sum_rec h",
            );
        }

        let mut out = vec![f64::NAN; 4];
        let jac = edges::prefix_jacobian(&x, &mut out);
        let cols = fd_columns(
            &|z| {
                let mut o = vec![0.0; 4];
                edges::prefix(z, &mut o);
                o
            },
            &x,
        );
        for i in 0..4 {
            for j in 0..4 {
                assert_near(jac[i][j], cols[j][i], 1e-7, 1.0, "prefix jac");
            }
        }
        let (_, g) = edges::through_prefix_grad(&x);
        fd_check("through_prefix", &|z| edges::through_prefix(z), &x, &g);
        let (_, _, h) = edges::through_prefix_hessian(&x);
        hess_check(
            "through_prefix h",
            &|z| edges::through_prefix_grad(z).1,
            &x,
            &h,
        );

        let xw = [x.clone(), w.clone()].concat();
        flat_check(
            "indexed_closure",
            &|z| edges::indexed_closure(&z[..4], &z[4..]),
            &|z| {
                let (_, (a, b)) = edges::indexed_closure_grad(&z[..4], &z[4..]);
                [a, b].concat()
            },
            &|z| edges::indexed_closure_hessian(&z[..4], &z[4..]).2,
            &xw,
        );

        // x2' = x2 + x0 x1; f = x2' x1.
        let a3 = [x[0], x[1], x[2]];
        let (v, g): (f64, [f64; 3]) = edges::by_value_array_grad(a3);
        assert_near(v, (x[2] + x[0] * x[1]) * x[1], 1e-14, 1.0, "by_value_array");
        let e = [x[1] * x[1], x[2] + 2.0 * x[0] * x[1], x[1]];
        assert_vec_near(&g, &e, 1e-12, "by_value_array");
        let (_, _, h) = edges::by_value_array_hessian(a3);
        hess_check(
            "by_value_array h",
            &|z| edges::by_value_array_grad([z[0], z[1], z[2]]).1.to_vec(),
            &a3,
            &h,
        );

        let (a, b) = (x[0], x[1]);
        let (_, ga): (f64, f64) = edges::only_a_grad(a, b, &w);
        let e: f64 = w
            .iter()
            .map(|&t| t * (1.0 - (a * t + b).tanh().powi(2)))
            .sum();
        assert_near(ga, e, 1e-12, 1.0, "only_a");
        let d: [f64; 4] = edges::only_a_derivatives(a, b, &w);
        assert_near(d[1], ga, 1e-14, 1.0, "only_a d1");
        let d1 = |t: f64| edges::only_a_derivatives(t, b, &w)[1];
        assert_near(d[2], fd1(&d1, a, 1e-6), 1e-7, 1.0, "only_a d2");
        let d2 = |t: f64| edges::only_a_derivatives(t, b, &w)[2];
        assert_near(d[3], fd1(&d2, a, 1e-6), 1e-6, 1.0, "only_a d3");
        let (_, _, h) = edges::only_a_hessian(a, b, &w);
        assert_eq!(h.len(), 1);
        assert_near(h[0][0], d[2], 1e-12, 1.0, "only_a Hessian and d2");

        flat_check(
            "nested_calling",
            &|z| edges::nested_calling(z[0], z[1]),
            &|z| {
                let (_, (p, q)) = edges::nested_calling_grad(z[0], z[1]);
                vec![p, q]
            },
            &|z| edges::nested_calling_hessian(z[0], z[1]).2,
            &x[..2],
        );

        let x32: Vec<f32> = x.iter().map(|&a| a as f32).collect();
        let (_, g32): (f32, Vec<f32>) = edges::single_grad(&x32);
        let (_, _, h32): (f32, Vec<f32>, Vec<Vec<f32>>) = edges::single_hessian(&x32);
        for i in 0..4 {
            let n = (i + 1) % 4;
            let p = (i + 3) % 4;
            let e = x[i].exp() * x[n] + x[p].exp();
            assert!((g32[i] as f64 - e).abs() < 1e-5, "single grad {i}");
            assert!(
                (h32[i][i] as f64 - x[i].exp() * x[n]).abs() < 1e-5,
                "single h"
            );
            assert!((h32[i][n] as f64 - x[i].exp()).abs() < 1e-5, "single h off");
        }
    }
}

// ---- `match` on an enum and a `&str`, matrices built in the body and passed on, rows iterated ----

mod shapes {
    use autodiff::differentiable;

    #[derive(Clone, Copy, PartialEq, Debug)]
    pub enum Act {
        Relu,
        Tanh,
        Soft,
    }

    #[differentiable(order = 3)]
    pub fn act(x: f64, a: Act) -> f64 {
        match a {
            Act::Relu => x.max(0.0),
            Act::Tanh => x.tanh(),
            Act::Soft => (1.0 + x.exp()).ln(),
        }
    }

    #[differentiable(order = 2)]
    pub fn act_if(x: f64, a: Act) -> f64 {
        if a == Act::Relu {
            x.max(0.0)
        } else {
            x.tanh()
        }
    }

    #[differentiable(order = 2)]
    pub fn by_str(x: f64, mode: &str) -> f64 {
        match mode {
            "sq" => x * x,
            _ => x,
        }
    }

    #[differentiable(order = 2)]
    pub fn row_lse(m: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            s += m[i].iter().map(|v| v.exp()).sum::<f64>().ln();
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn cubes(m: [[f64; 2]; 2]) -> f64 {
        let mut s = 0.0;
        for row in m.iter() {
            for &v in row.iter() {
                s += v * v * v;
            }
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn sines(x: &[f64]) -> f64 {
        x.iter().map(|v| v.sin()).sum()
    }

    #[differentiable(order = 2)]
    pub fn rows_passed(m: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            s += sines(&m[i]);
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn det2(m: &[Vec<f64>]) -> f64 {
        m[0][0] * m[1][1] - m[0][1] * m[1][0]
    }

    #[differentiable(order = 2)]
    pub fn det2_array(m: &[[f64; 2]; 2]) -> f64 {
        m[0][0] * m[1][1] - m[0][1] * m[1][0]
    }

    #[differentiable(order = 2)]
    pub fn local_matrix(x: &[f64]) -> f64 {
        let m = vec![vec![x[0], x[1]], vec![x[1] * x[0], 1.0]];
        det2(&m)
    }

    #[differentiable(order = 2)]
    pub fn local_nested(x: f64, y: f64) -> f64 {
        let m = [[x, y], [y * x, 1.0]];
        let mut s = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                s += m[i][j] * m[j][i];
            }
        }
        s + det2_array(&m)
    }

    #[differentiable]
    pub fn doubled_into(x: &[f64], out: &mut Vec<f64>) {
        for i in 0..x.len() {
            out[i] = x[i] * x[i] * 2.0;
        }
    }
}

#[test]
fn enums_strings_and_matrices_built_in_the_body() {
    use shapes::*;
    let mut rng = Lcg::new(2114);
    for _ in 0..8 {
        let x = rng.uniform(-2.0, 2.0);
        let s = 1.0 / (1.0 + (-x).exp());
        let d: [f64; 4] = act_derivatives(x, Act::Soft);
        assert_vec_near(
            &d,
            &[
                (1.0 + x.exp()).ln(),
                s,
                s * (1.0 - s),
                s * (1.0 - s) * (1.0 - 2.0 * s),
            ],
            1e-12,
            "soft",
        );
        let t = x.tanh();
        let d = act_derivatives(x, Act::Tanh);
        assert_near(d[2], -2.0 * t * (1.0 - t * t), 1e-12, 1.0, "tanh''");
        let d = act_derivatives(x, Act::Relu);
        assert_eq!(d[1], if x > 0.0 { 1.0 } else { 0.0 });
        assert_eq!(
            act_if_hessian(x, Act::Tanh).2[0][0],
            -2.0 * t * (1.0 - t * t)
        );
        assert_eq!(by_str_hessian(x, "sq").2[0][0], 2.0);
        assert_eq!(by_str_grad(x, "id").1, 1.0);

        let m = vec![rng.vec(3, -1.0, 1.0), rng.vec(3, -1.0, 1.0)];
        flat_check(
            "row_lse",
            &|z| row_lse(&rows(z, 3)),
            &|z| flat(&row_lse_grad(&rows(z, 3)).1),
            &|z| row_lse_hessian(&rows(z, 3)).2,
            &flat(&m),
        );
        flat_check(
            "rows_passed",
            &|z| rows_passed(&rows(z, 3)),
            &|z| flat(&rows_passed_grad(&rows(z, 3)).1),
            &|z| rows_passed_hessian(&rows(z, 3)).2,
            &flat(&m),
        );
        let (_, g): (f64, Vec<Vec<f64>>) = rows_passed_grad(&m);
        assert_near(g[1][2], m[1][2].cos(), 1e-14, 1.0, "rows_passed");

        let a = [[m[0][0], m[0][1]], [m[1][0], m[1][1]]];
        let (_, g): (f64, [[f64; 2]; 2]) = cubes_grad(a);
        assert_near(g[1][0], 3.0 * a[1][0] * a[1][0], 1e-14, 1.0, "cubes");
        let (_, _, h) = cubes_hessian(a);
        assert_near(h[2][2], 6.0 * a[1][0], 1e-14, 1.0, "cubes h");

        // det [[x0, x1], [x1 x0, 1]] = x0 (1 - x1²).
        let v = [m[0][0], m[0][1]];
        let (_, g) = local_matrix_grad(&v);
        assert_vec_near(
            &g,
            &[1.0 - v[1] * v[1], -2.0 * v[0] * v[1]],
            1e-14,
            "local_matrix",
        );
        let (_, _, h) = local_matrix_hessian(&v);
        assert_vec_near(
            &h.concat(),
            &[0.0, -2.0 * v[1], -2.0 * v[1], -2.0 * v[0]],
            1e-14,
            "lm h",
        );

        // x² + 2 x y² + 1 + x (1 - y²).
        let (p, q) = (v[0], v[1]);
        let (_, (gp, gq)) = local_nested_grad(p, q);
        assert_near(
            gp,
            2.0 * p + 2.0 * q * q + 1.0 - q * q,
            1e-14,
            1.0,
            "local_nested p",
        );
        assert_near(gq, 4.0 * p * q - 2.0 * p * q, 1e-14, 1.0, "local_nested q");
        let (_, _, h) = local_nested_hessian(p, q);
        assert_vec_near(
            &h.concat(),
            &[2.0, 2.0 * q, 2.0 * q, 2.0 * p],
            1e-14,
            "ln h",
        );

        let xs = rng.vec(3, -1.0, 1.0);
        let mut out = vec![f64::NAN; 3];
        let d = rng.vec(3, -1.0, 1.0);
        let g: Vec<f64> = doubled_into_vjp(&xs, &mut out, &d);
        for i in 0..3 {
            assert_eq!(out[i], xs[i] * xs[i] * 2.0);
            assert_near(g[i], 4.0 * xs[i] * d[i], 1e-14, 1.0, "doubled_into");
        }
    }
}
