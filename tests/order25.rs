//! `order = K` (and calls) where the first order worked: a plain helper on active floats whose result is an
//! integer used as one (`let k = argmax(x); x[k]`), which carries no derivative and is called as written in
//! the generic copy on the values of its arguments. Checked against derivatives by hand and central
//! differences of `f_grad` (themselves checked against differences of `f`).

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, hessian_column, Inputs};

/// Central differences of the gradient against `f_hessian`, and of `f` against `f_grad`, at `x`.
#[track_caller]
fn check_hessian(
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
    hessian: &[Vec<f64>],
    x: &[f64],
    what: &str,
) {
    assert_fd_gradient(&f, x, &grad(x), what);
    for i in 0..x.len() {
        let column = hessian_column(&grad, x, i);
        let ours: Vec<f64> = hessian.iter().map(|row| row[i]).collect();
        assert_all_close(
            &ours,
            &column,
            1e-6,
            &format!("{what}: Hessian column {i} at {x:?}"),
        );
    }
}

/// Points of `n` inputs whose entries are at least `gap` apart (no tie that a difference step crosses).
fn separated_points(seed: u64, n: usize, gap: f64) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    let mut points = Vec::new();
    while points.len() < 8 {
        let x: Vec<f64> = inputs.vec(n).iter().map(|v| 2.0 * v).collect();
        let separated = (0..n).all(|i| (0..i).all(|j| (x[i] - x[j]).abs() > gap));
        if separated && x.iter().all(|v| v.abs() > gap) {
            points.push(x);
        }
    }
    points
}

// ---- 1. a plain helper returning an index

/// A plain function (no derivatives) of active floats returning an index.
fn argmax_f(x: &[f64]) -> usize {
    let mut k = 0;
    for i in 1..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    k
}

fn argmin_of_three(a: &[f64; 3]) -> usize {
    let mut k = 0;
    for i in 1..3 {
        if a[i] < a[k] {
            k = i;
        }
    }
    k
}

/// How many entries of `x` exceed `t`.
fn count_above(x: &[f64], t: f64) -> usize {
    x.iter().filter(|v| **v > t).count()
}

#[differentiable]
fn square_of_max(x: &[f64]) -> f64 {
    let k = argmax_f(x);
    x[k] * x[k]
}

/// The log-sum-exp shifted by the largest entry, as numerically careful code writes it.
#[differentiable(order = 2)]
fn log_sum_exp(x: &[f64]) -> f64 {
    let k = argmax_f(x);
    let m = x[k];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] - m).exp();
    }
    m + s.ln()
}

/// The index in arithmetic (`(k + 1) % n`), and in an index expression written in the call.
#[differentiable(order = 2)]
fn neighbour_of_max(x: &[f64]) -> f64 {
    let k = argmax_f(x);
    let j = (k + 1) % x.len();
    x[k] * x[j].sin() + x[argmax_f(x)] * x[0]
}

/// A count as a loop's bound, with a float argument that is active (`x[0]`).
#[differentiable(order = 2)]
fn cubes_of_leading(x: &[f64]) -> f64 {
    let n = count_above(x, x[0]);
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[i];
    }
    s + x[0] * x[1]
}

/// A local `Vec` and an array parameter passed to helpers, the result declared `usize`.
#[differentiable(order = 2)]
fn picked(a: &[f64; 3]) -> f64 {
    let v = vec![a[0] * 2.0, a[1], a[2] * a[2]];
    let k = argmax_f(&v);
    let j: usize = argmin_of_three(a);
    v[k] * a[j]
}

/// The count declared `usize` (as the error of the undeclared one advises,
/// tests/ui/calls/plain-helper-integer-result.rs) and converted to a float.
#[differentiable(order = 2)]
fn scaled_by_count(x: &[f64]) -> f64 {
    let n: usize = count_above(x, 0.0);
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s * (n as f64 + 1.0)
}

/// An `order = 2` caller of the first-order function (its generic copy).
#[differentiable(order = 2)]
fn through_square_of_max(x: &[f64]) -> f64 {
    square_of_max(x) * x[1]
}

#[test]
fn a_plain_helper_returning_an_index_compiles_at_first_order() {
    for x in separated_points(1, 4, 1e-3) {
        let (v, g) = square_of_max_grad(&x);
        let k = argmax_f(&x);
        assert_eq!(v, x[k] * x[k]);
        let mut expected = vec![0.0; 4];
        expected[k] = 2.0 * x[k];
        assert_all_close(&g, &expected, 1e-12, "square_of_max_grad");
        assert_fd_gradient(square_of_max, &x, &g, "square_of_max");
        let (_, t) = square_of_max_jvp(&x, vec![1.0, 2.0, 3.0, 4.0]);
        assert_all_close(
            &[t],
            &[expected[k] * (k + 1) as f64],
            1e-12,
            "square_of_max_jvp",
        );
    }
}

#[test]
fn log_sum_exp_through_an_argmax_has_the_softmax_hessian() {
    for x in separated_points(2, 5, 1e-3) {
        let (v, g, h) = log_sum_exp_hessian(&x);
        let total: f64 = x.iter().map(|v| v.exp()).sum();
        let p: Vec<f64> = x.iter().map(|v| v.exp() / total).collect();
        assert_all_close(&[v], &[total.ln()], 1e-12, "log_sum_exp");
        assert_all_close(&g, &p, 1e-12, "log_sum_exp gradient: softmax");
        for i in 0..5 {
            let row: Vec<f64> = (0..5)
                .map(|j| {
                    if i == j {
                        p[i] - p[i] * p[j]
                    } else {
                        -p[i] * p[j]
                    }
                })
                .collect();
            assert_all_close(&h[i], &row, 1e-12, "log_sum_exp Hessian: diag(p) - p p^T");
        }
        check_hessian(
            log_sum_exp,
            |x| log_sum_exp_grad(x).1,
            &h,
            &x,
            "log_sum_exp",
        );
        // f_hvp agrees with the Hessian.
        let dir = [0.5, -1.0, 0.25, 2.0, -0.75];
        let (_, _, hv) = log_sum_exp_hvp(&x, dir.to_vec());
        let expected: Vec<f64> = h.iter().map(|r| common::dot(r, &dir)).collect();
        assert_all_close(&hv, &expected, 1e-12, "log_sum_exp_hvp");
    }
}

#[test]
fn an_index_in_arithmetic_and_in_a_call_inside_an_index() {
    for x in separated_points(3, 4, 1e-3) {
        let (v, g, h) = neighbour_of_max_hessian(&x);
        let k = argmax_f(&x);
        let j = (k + 1) % 4;
        assert_all_close(&[v], &[x[k] * x[j].sin() + x[k] * x[0]], 1e-12, "value");
        // Analytic: d/dx_k, d/dx_j, d/dx_0 of x_k sin x_j + x_k x_0.
        let mut expected_h = vec![vec![0.0; 4]; 4];
        expected_h[k][j] += x[j].cos();
        expected_h[j][k] += x[j].cos();
        expected_h[j][j] += -x[k] * x[j].sin();
        expected_h[k][0] += 1.0;
        expected_h[0][k] += 1.0;
        for i in 0..4 {
            assert_all_close(
                &h[i],
                &expected_h[i],
                1e-12,
                "neighbour_of_max Hessian by hand",
            );
        }
        check_hessian(
            neighbour_of_max,
            |x| neighbour_of_max_grad(x).1,
            &h,
            &x,
            "neighbour_of_max",
        );
        let _ = g;
    }
}

#[test]
fn a_count_bounds_a_loop() {
    for x in separated_points(4, 5, 1e-3) {
        let (v, _, h) = cubes_of_leading_hessian(&x);
        let n = count_above(&x, x[0]);
        let by_hand: f64 = x[..n].iter().map(|v| v * v * v).sum::<f64>() + x[0] * x[1];
        assert_all_close(&[v], &[by_hand], 1e-12, "value");
        let mut expected_h = vec![vec![0.0; 5]; 5];
        for i in 0..n {
            expected_h[i][i] = 6.0 * x[i];
        }
        expected_h[0][1] += 1.0;
        expected_h[1][0] += 1.0;
        for i in 0..5 {
            assert_all_close(
                &h[i],
                &expected_h[i],
                1e-12,
                "cubes_of_leading Hessian by hand",
            );
        }
        check_hessian(
            cubes_of_leading,
            |x| cubes_of_leading_grad(x).1,
            &h,
            &x,
            "cubes_of_leading",
        );
    }
}

#[test]
fn a_local_vec_and_an_array_passed_to_helpers() {
    for x in separated_points(5, 3, 1e-2) {
        let a = [x[0], x[1], x[2]];
        let (v, g, h) = picked_hessian(&a);
        let w = [a[0] * 2.0, a[1], a[2] * a[2]];
        let (k, j) = (argmax_f(&w), argmin_of_three(&a));
        assert_all_close(&[v], &[w[k] * a[j]], 1e-12, "value");
        // d w_k / d a: w_0 = 2 a_0, w_1 = a_1, w_2 = a_2^2.
        let dw = |k: usize| -> [f64; 3] {
            let mut d = [0.0; 3];
            d[k] = [2.0, 1.0, 2.0 * a[2]][k];
            d
        };
        let d2w = |k: usize, i: usize, l: usize| if k == 2 && i == 2 && l == 2 { 2.0 } else { 0.0 };
        let e = |i: usize, j: usize| if i == j { 1.0 } else { 0.0 };
        for i in 0..3 {
            assert_all_close(
                &[g[i]],
                &[dw(k)[i] * a[j] + w[k] * e(i, j)],
                1e-12,
                "gradient by hand",
            );
            for l in 0..3 {
                let expected = d2w(k, i, l) * a[j] + dw(k)[i] * e(l, j) + dw(k)[l] * e(i, j);
                assert_all_close(&[h[i][l]], &[expected], 1e-12, "picked Hessian by hand");
            }
        }
        let f = |x: &[f64]| picked(&[x[0], x[1], x[2]]);
        let grad = |x: &[f64]| picked_grad(&[x[0], x[1], x[2]]).1.to_vec();
        check_hessian(f, grad, &h, &x, "picked");
    }
}

#[test]
fn a_count_declared_usize_is_a_constant_factor() {
    for x in separated_points(10, 4, 1e-3) {
        let (v, g, h) = scaled_by_count_hessian(&x);
        let c = count_above(&x, 0.0) as f64 + 1.0;
        let s: f64 = x.iter().map(|v| v * v).sum();
        assert_all_close(&[v], &[s * c], 1e-12, "value");
        let expected: Vec<f64> = x.iter().map(|v| 2.0 * c * v).collect();
        assert_all_close(&g, &expected, 1e-12, "gradient by hand");
        for i in 0..4 {
            let row: Vec<f64> = (0..4).map(|j| if i == j { 2.0 * c } else { 0.0 }).collect();
            assert_all_close(&h[i], &row, 1e-12, "Hessian by hand");
        }
        check_hessian(
            scaled_by_count,
            |x| scaled_by_count_grad(x).1,
            &h,
            &x,
            "scaled_by_count",
        );
    }
}

#[test]
fn an_order_2_caller_reaches_the_copy_of_a_first_order_function() {
    for x in separated_points(6, 4, 1e-3) {
        let (v, _, h) = through_square_of_max_hessian(&x);
        let k = argmax_f(&x);
        assert_all_close(&[v], &[x[k] * x[k] * x[1]], 1e-12, "value");
        // x_k^2 x_1: d2/dx_k^2 = 2 x_1 (k != 1), d2/dx_k dx_1 = 2 x_k; for k = 1, x_1^3: 6 x_1.
        let mut expected_h = vec![vec![0.0; 4]; 4];
        if k == 1 {
            expected_h[1][1] = 6.0 * x[1];
        } else {
            expected_h[k][k] = 2.0 * x[1];
            expected_h[k][1] = 2.0 * x[k];
            expected_h[1][k] = 2.0 * x[k];
        }
        for i in 0..4 {
            assert_all_close(
                &h[i],
                &expected_h[i],
                1e-12,
                "through_square_of_max Hessian by hand",
            );
        }
        check_hessian(
            through_square_of_max,
            |x| through_square_of_max_grad(x).1,
            &h,
            &x,
            "through_square_of_max",
        );
    }
}

// ---- 3. a parameter struct passed whole to a function returning a tuple, or writing an output

mod structs {
    use super::*;
    use autodiff::Differentiable;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer {
        pub w: Vec<Vec<f64>>,
        pub b: Vec<f64>,
    }

    fn layer(v: &[f64]) -> Layer {
        Layer {
            w: vec![vec![v[0], v[1]], vec![v[2], v[3]]],
            b: vec![v[4], v[5]],
        }
    }

    /// A callee returning a tuple (first order only), reading a matrix field.
    #[differentiable]
    fn pair(p: &Layer, x: f64) -> (f64, f64) {
        (p.w[0][0] * x, p.b[1] * x.sin())
    }

    #[differentiable(order = 2)]
    fn through_a_pair(p: &Layer, x: f64) -> f64 {
        let (a, b) = pair(p, x);
        a * b + p.w[1][1] * p.b[0]
    }

    #[test]
    fn a_struct_passed_whole_to_a_function_returning_a_tuple() {
        for point in separated_points(7, 7, 1e-3) {
            let (p, x) = (layer(&point[..6]), point[6]);
            let (v, (gp, gx), h) = through_a_pair_hessian(&p, x);
            // f = w00 b1 x sin x + w11 b0; inputs [w00, w01, w10, w11, b0, b1, x].
            let (w00, w11, b0, b1) = (point[0], point[3], point[4], point[5]);
            let (s, c) = (x.sin(), x.cos());
            assert_all_close(&[v], &[w00 * b1 * x * s + w11 * b0], 1e-12, "value");
            let mut g = gp.to_flat();
            g.push(gx);
            let dx = w00 * b1 * (s + x * c);
            let expected_g = [b1 * x * s, 0.0, 0.0, b0, w11, w00 * x * s, dx];
            assert_all_close(&g, &expected_g, 1e-12, "gradient by hand");
            let mut expected_h = vec![vec![0.0; 7]; 7];
            let mut set = |i: usize, j: usize, v: f64| {
                expected_h[i][j] = v;
                expected_h[j][i] = v;
            };
            set(0, 5, x * s);
            set(0, 6, b1 * (s + x * c));
            set(5, 6, w00 * (s + x * c));
            set(3, 4, 1.0);
            set(6, 6, w00 * b1 * (2.0 * c - x * s));
            for i in 0..7 {
                assert_all_close(&h[i], &expected_h[i], 1e-12, "Hessian by hand");
            }
            check_hessian(
                |v| through_a_pair(&layer(&v[..6]), v[6]),
                |v| {
                    let (_, (gp, gx)) = through_a_pair_grad(&layer(&v[..6]), v[6]);
                    let mut g = gp.to_flat();
                    g.push(gx);
                    g
                },
                &h,
                &point,
                "through_a_pair",
            );
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Dense {
        pub w: Vec<f64>,
        pub b: Vec<f64>,
        #[no_grad]
        pub n_in: usize,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Model {
        pub hidden: Dense,
        pub out: Dense,
    }

    /// One dense layer writing its output (first order only), its activation chosen by `kind`.
    #[differentiable]
    pub fn dense(layer: &Dense, x: &[f64], kind: u8, out: &mut [f64]) {
        for o in 0..layer.b.len() {
            let mut z = layer.b[o];
            for i in 0..layer.n_in {
                z += layer.w[o * layer.n_in + i] * x[i];
            }
            out[o] = match kind {
                0 => z.tanh(),
                _ => z,
            };
        }
    }

    /// The model's fields passed whole to `dense`.
    #[differentiable(order = 2)]
    pub fn predict(m: &Model, x: &[f64]) -> f64 {
        let mut h = vec![0.0; m.hidden.b.len()];
        dense(&m.hidden, x, 0, &mut h);
        let mut y = vec![0.0; 1];
        dense(&m.out, &h, 1, &mut y);
        y[0] * y[0]
    }

    /// The layer itself passed whole to `dense`.
    #[differentiable(order = 2)]
    pub fn one_layer(d: &Dense, x: &[f64]) -> f64 {
        let mut y = vec![0.0; 2];
        dense(d, x, 0, &mut y);
        y[0] * y[1]
    }

    /// 2 inputs, 2 hidden (tanh), 1 output (linear): 6 + 3 model parameters, then the 2 inputs.
    fn model(v: &[f64]) -> Model {
        Model {
            hidden: Dense {
                w: v[0..4].to_vec(),
                b: v[4..6].to_vec(),
                n_in: 2,
            },
            out: Dense {
                w: v[6..8].to_vec(),
                b: v[8..9].to_vec(),
                n_in: 2,
            },
        }
    }

    /// The same network written out by hand, sharing no code with the macro.
    fn predict_by_hand(v: &[f64]) -> f64 {
        let x = &v[9..11];
        let h0 = (v[4] + v[0] * x[0] + v[1] * x[1]).tanh();
        let h1 = (v[5] + v[2] * x[0] + v[3] * x[1]).tanh();
        let y = v[8] + v[6] * h0 + v[7] * h1;
        y * y
    }

    fn flat_grad(m: &Model, x: &[f64]) -> Vec<f64> {
        let (_, (gm, gx)) = predict_grad(m, x);
        let mut g = gm.to_flat();
        g.extend(gx);
        g
    }

    #[test]
    fn fields_passed_whole_to_a_function_with_an_output() {
        for point in separated_points(8, 11, 1e-4) {
            let (m, x) = (model(&point), &point[9..11]);
            let (v, (gm, gx), h) = predict_hessian(&m, x);
            assert_all_close(
                &[v, predict(&m, x)],
                &[predict_by_hand(&point); 2],
                1e-12,
                "value",
            );
            let mut g = gm.to_flat();
            g.extend(&gx);
            assert_fd_gradient(
                predict_by_hand,
                &point,
                &g,
                "predict against the network by hand",
            );
            // The output layer's Hessian block by hand: f = y^2, y linear in (w_out, b_out), so
            // d2f/dw_i dw_j = 2 h_i h_j with h = [h0, h1, 1].
            let hid = [
                (point[4] + point[0] * x[0] + point[1] * x[1]).tanh(),
                (point[5] + point[2] * x[0] + point[3] * x[1]).tanh(),
                1.0,
            ];
            for i in 0..3 {
                for j in 0..3 {
                    assert_all_close(
                        &[h[6 + i][6 + j]],
                        &[2.0 * hid[i] * hid[j]],
                        1e-12,
                        "output block",
                    );
                }
            }
            check_hessian(
                predict_by_hand,
                |v| flat_grad(&model(v), &v[9..11]),
                &h,
                &point,
                "predict",
            );
        }
    }

    #[test]
    fn a_struct_passed_whole_to_a_function_with_an_output() {
        for point in separated_points(9, 8, 1e-4) {
            let d = Dense {
                w: point[0..4].to_vec(),
                b: point[4..6].to_vec(),
                n_in: 2,
            };
            let x = &point[6..8];
            let (v, _, h) = one_layer_hessian(&d, x);
            let z0 = point[4] + point[0] * x[0] + point[1] * x[1];
            let z1 = point[5] + point[2] * x[0] + point[3] * x[1];
            assert_all_close(&[v], &[z0.tanh() * z1.tanh()], 1e-12, "value");
            // d2/db0 db1 of tanh(z0) tanh(z1) = sech^2 z0 sech^2 z1; d2/db0^2 = -2 tanh z0 sech^2 z0 tanh z1.
            let (s0, s1) = (1.0 - z0.tanh().powi(2), 1.0 - z1.tanh().powi(2));
            assert_all_close(
                &[h[4][5], h[5][4]],
                &[s0 * s1, s0 * s1],
                1e-12,
                "d2/db0 db1",
            );
            assert_all_close(
                &[h[4][4]],
                &[-2.0 * z0.tanh() * s0 * z1.tanh()],
                1e-12,
                "d2/db0^2",
            );
            let rebuild = |v: &[f64]| Dense {
                w: v[0..4].to_vec(),
                b: v[4..6].to_vec(),
                n_in: 2,
            };
            check_hessian(
                |v| one_layer(&rebuild(v), &v[6..8]),
                |v| {
                    let (_, (gd, gx)) = one_layer_grad(&rebuild(v), &v[6..8]);
                    let mut g = gd.to_flat();
                    g.extend(gx);
                    g
                },
                &h,
                &point,
                "one_layer",
            );
        }
    }
}

// ---- a differentiable call's result cast to the float type (`g(x) as f64`): its derivative was dropped
// (a zero gradient: the cast of a value of unknown kind passed none), and in the generic copy `cast` took a
// dual number through `f64` (a wrong second derivative at an `order = 2` caller).

// `as f64` of an `f64` is the form tested (the result of a call, whose type the macro cannot see).
#[allow(clippy::unnecessary_cast)]
mod casts {
    use super::*;
    use common::{central_difference, check_by_hand};

    #[differentiable]
    fn cube(x: f64) -> f64 {
        x * x * x
    }

    #[differentiable]
    fn cube_cast(x: f64) -> f64 {
        cube(x) as f64 + x
    }

    #[differentiable(order = 3)]
    fn cube_cast_times(x: f64) -> f64 {
        (cube(x) as f64) * x
    }

    #[differentiable(order = 3)]
    fn through_cube_cast(x: f64) -> f64 {
        cube_cast(x) * x
    }

    #[test]
    fn a_differentiable_calls_result_cast_to_f64_keeps_its_derivative() {
        for x in [-1.7, -0.4, 0.3, 1.1, 2.5] {
            let (v, g) = cube_cast_grad(x);
            assert_all_close(
                &[v, g],
                &[x * x * x + x, 3.0 * x * x + 1.0],
                1e-12,
                "cube_cast_grad",
            );
            assert_all_close(
                &[g],
                &[central_difference(cube_cast, x)],
                1e-6,
                "against differences",
            );
            let (_, t) = cube_cast_jvp(x, 1.0);
            assert_all_close(&[t], &[3.0 * x * x + 1.0], 1e-12, "cube_cast_jvp");
            // x^4 and its derivatives.
            let by_hand = [x.powi(4), 4.0 * x.powi(3), 12.0 * x * x, 24.0 * x];
            assert_all_close(
                &cube_cast_times_derivatives(x),
                &by_hand,
                1e-12,
                "cube_cast_times",
            );
            assert_all_close(
                &[cube_cast_times(x)],
                &by_hand[..1],
                1e-12,
                "cube_cast_times",
            );
            // (x^3 + x) x = x^4 + x^2.
            let by_hand = [
                x.powi(4) + x * x,
                4.0 * x.powi(3) + 2.0 * x,
                12.0 * x * x + 2.0,
                24.0 * x,
            ];
            check_by_hand(
                "through_cube_cast",
                x,
                &by_hand,
                through_cube_cast,
                through_cube_cast_grad,
                &through_cube_cast_derivatives(x),
                through_cube_cast_hessian(x).2[0][0],
            );
        }
    }

    // `y as f64` of a float local or parameter inside a callee that an order = K caller reaches: the callee's
    // generic copy, run on dual numbers, took the value through `f64` and dropped its tangent (f3's third
    // derivative 36 instead of 48 at x = 2: x^3 * x, the cast's part lost).
    #[differentiable]
    fn cast_local(x: f64) -> f64 {
        let y = x * x * x;
        y as f64
    }

    #[differentiable]
    fn cast_parameter(x: f64, w: &[f64]) -> f64 {
        let n = w.len();
        let m: f64 = x * w[0];
        (x as f64) * x + (m as f64) * (n as f64) + (-x * 2.0) as f64
    }

    #[differentiable]
    fn cast_element(w: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..w.len() {
            s += w[i] as f64 * w[0];
        }
        s
    }

    #[differentiable(order = 2)]
    fn through_cast_element(w: &[f64]) -> f64 {
        cast_element(w) * w[1]
    }

    #[differentiable(order = 3)]
    fn through_cast_local(x: f64) -> f64 {
        cast_local(x) * x
    }

    #[differentiable(order = 2)]
    fn through_cast_parameter(x: f64, w: &[f64]) -> f64 {
        cast_parameter(x, w) * x
    }

    // A float parameter's name rebound to an integer by a match (and a local bound to that): their casts
    // go through `cast` (autodiff-fuzz --sugar --seed 25068 p24 and 25061 p33 failed to compile when the
    // local was taken for a float).
    #[differentiable]
    #[allow(clippy::useless_vec, clippy::match_single_binding)] // the forms under test
    fn rebound(a: f64, k: usize) -> f64 {
        let t = match k % 3 {
            a if a >= 1 => {
                let n = a;
                (n as f64) * 0.5
            }
            _ => 1.0,
        };
        let v = vec![
            match k {
                a => (a as f64) * 0.25,
            };
            2
        ];
        a * t + v[1]
    }

    #[differentiable(order = 2)]
    fn through_rebound(a: f64, k: usize) -> f64 {
        rebound(a, k) * a
    }

    #[test]
    fn a_name_rebound_to_an_integer_is_cast_at_order_k() {
        for k in 0..4 {
            let t = if k % 3 >= 1 {
                (k % 3) as f64 * 0.5
            } else {
                1.0
            };
            let c = k as f64 * 0.25;
            for a in [-1.2_f64, 0.4, 2.0] {
                // (a t + c) a.
                let by_hand = [a * a * t + c * a, 2.0 * a * t + c, 2.0 * t];
                assert_all_close(
                    &through_rebound_derivatives(a, k),
                    &by_hand,
                    1e-12,
                    "rebound",
                );
                assert_all_close(&[through_rebound(a, k)], &by_hand[..1], 1e-12, "value");
                let d = central_difference(|a| through_rebound_grad(a, k).1, a);
                assert_all_close(&[by_hand[2]], &[d], 1e-6, "against differences of f_grad");
            }
        }
    }

    #[test]
    fn an_elements_cast_to_its_own_type_in_a_callee_keeps_its_derivative_at_order_k() {
        for t in [-1.3_f64, -0.2, 0.4, 1.7] {
            // (w0 + w1 + w2) w0 w1.
            let w = [0.7 + t, t * t - 0.5, 0.3 * t + 0.1];
            let s = w[0] + w[1] + w[2];
            assert_all_close(
                &[through_cast_element(&w)],
                &[s * w[0] * w[1]],
                1e-12,
                "value",
            );
            let (_, g, h) = through_cast_element_hessian(&w);
            let by_hand_g = [w[0] * w[1] + s * w[1], w[0] * w[1] + s * w[0], w[0] * w[1]];
            assert_all_close(&g, &by_hand_g, 1e-12, "gradient");
            let by_hand_h = [
                [2.0 * w[1], w[0] + w[1] + s, w[1]],
                [w[0] + w[1] + s, 2.0 * w[0], w[0]],
                [w[1], w[0], 0.0],
            ];
            for (j, row) in by_hand_h.iter().enumerate() {
                assert_all_close(&h[j], row, 1e-12, "Hessian");
                let column = |e: f64| {
                    let mut v = w;
                    v[j] = e;
                    through_cast_element_grad(&v).1
                };
                for (k, &hjk) in h[j].iter().enumerate() {
                    let d = central_difference(|e| column(e)[k], w[j]);
                    assert_all_close(&[hjk], &[d], 1e-6, "against differences of f_grad");
                }
            }
        }
    }

    #[test]
    fn a_float_cast_to_its_own_type_in_a_callee_keeps_its_derivative_at_order_k() {
        for x in [-1.7_f64, -0.4, 0.3, 1.1, 2.0, 2.5] {
            // x^4.
            let by_hand = [x.powi(4), 4.0 * x.powi(3), 12.0 * x * x, 24.0 * x];
            check_by_hand(
                "through_cast_local",
                x,
                &by_hand,
                through_cast_local,
                through_cast_local_grad,
                &through_cast_local_derivatives(x),
                through_cast_local_hessian(x).2[0][0],
            );
            // (x^2 + 2 w0 x - 2x) x with two weights: x^3 + (2 w0 - 2) x^2; w1 does not enter.
            let w = [0.5 + 0.1 * x, -0.3];
            let (_, (gx, gw), h) = through_cast_parameter_hessian(x, &w);
            let (a, b) = (2.0 * w[0] - 2.0, 2.0 * x * x);
            assert_all_close(
                &[through_cast_parameter(x, &w)],
                &[x.powi(3) + a * x * x],
                1e-12,
                "value",
            );
            assert_all_close(
                &[gx, gw[0], gw[1]],
                &[3.0 * x * x + 2.0 * a * x, b, 0.0],
                1e-12,
                "through_cast_parameter gradient",
            );
            let by_hand = [
                [6.0 * x + 2.0 * a, 4.0 * x, 0.0],
                [4.0 * x, 0.0, 0.0],
                [0.0, 0.0, 0.0],
            ];
            let fx = |x: f64| through_cast_parameter_grad(x, &w).1 .0;
            let fw0 = |w0: f64| through_cast_parameter_grad(x, &[w0, w[1]]).1 .0;
            for (i, row) in by_hand.iter().enumerate() {
                assert_all_close(&h[i], row, 1e-12, "through_cast_parameter Hessian");
            }
            assert_all_close(
                &[h[0][0], h[0][1]],
                &[central_difference(fx, x), central_difference(fw0, w[0])],
                1e-6,
                "through_cast_parameter against differences of f_grad",
            );
        }
    }
}
