//! Parameters of a struct or enum type that the test file declares without `Differentiable`: data, passed
//! through without a gradient, as API.md's table says of "anything else" (`context::declared_as_data`).
//! Before, such a parameter was taken for a parameter struct and was an error unless `wrt(..)` left it
//! out. Each gradient is checked against central differences of the function as written, on seeded
//! points; `_vjp`, `_jvp` and `_grad_into` against `_grad`.

// The primals are checked through their derivatives.
#![allow(dead_code, clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_fd_gradient, Inputs};

/// Settings of a loss: a scale and how many terms it sums.
pub struct Settings {
    pub scale: f64,
    pub n: usize,
}

/// A data set of a line fit.
pub struct Data {
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
}

/// How a value is raised.
#[derive(Clone, Copy)]
pub enum Mode {
    Square,
    Cube,
}

impl Mode {
    fn power(self) -> i32 {
        match self {
            Mode::Square => 2,
            Mode::Cube => 3,
        }
    }
}

/// A parameter struct beside the data: it derives `Differentiable`, so it stays active.
#[derive(Clone, Debug, Differentiable)]
pub struct Line {
    pub slope: f64,
    pub offset: f64,
}

/// At `order = 2` too: `cfg.n`, a loop bound, is read as the `usize` the file declares it with
/// (`context::data_field_type`), where a derive would have said it before.
#[differentiable(order = 2)]
fn scaled_cubes(w: &[f64], cfg: &Settings) -> f64 {
    let mut s = 0.0;
    for i in 0..cfg.n {
        s += cfg.scale * w[i] * w[i] * w[i];
    }
    s
}

#[differentiable]
fn fit(w: &[f64], data: &Data) -> f64 {
    let mut s = 0.0;
    for i in 0..data.xs.len() {
        let r = w[0] * data.xs[i] + w[1] - data.ys[i];
        s += r * r;
    }
    s / data.xs.len() as f64
}

/// Calls `fit`, passing the data on; its own gradient is the weights' alone.
#[differentiable]
fn regularised(w: &[f64], data: &Data, cfg: &Settings) -> f64 {
    fit(w, data) + cfg.scale * (w[0] * w[0] + w[1] * w[1])
}

#[differentiable(order = 2)]
fn powered(x: f64, mode: Mode, k: f64) -> f64 {
    k * x.powi(mode.power()) + x.sin()
}

/// The enum copied before it is matched on: data all the same, since the file declares it.
#[differentiable(order = 2)]
fn mode_copied(x: f64, mode: Mode) -> f64 {
    let m = mode;
    match m {
        Mode::Square => x * x,
        Mode::Cube => x * x * x,
    }
}

/// The enum by reference, and passed on by value to other functions of it.
#[differentiable(order = 2)]
fn by_ref(x: f64, mode: &Mode) -> f64 {
    x.powi(mode.power()) * 2.0
}

#[differentiable(order = 2)]
fn outer(x: f64, mode: Mode) -> f64 {
    mode_copied(x, mode) * x + powered(x, mode, 2.0) + by_ref(x, &mode)
}

/// A `Differentiable` struct and a data struct side by side: the gradient is the line's alone.
#[differentiable]
fn line_loss(line: &Line, data: &Data) -> f64 {
    let mut s = 0.0;
    for i in 0..data.xs.len() {
        let r = line.slope * data.xs[i] + line.offset - data.ys[i];
        s += r * r;
    }
    s
}

impl Data {
    /// A method of the data: `self` is constant, `w` differentiated.
    #[differentiable]
    fn loss(&self, w: &[f64]) -> f64 {
        0.5 * fit(w, self)
    }
}

fn data(inputs: &mut Inputs, m: usize) -> Data {
    Data {
        xs: inputs.vec(m),
        ys: inputs.vec(m),
    }
}

#[test]
fn a_settings_struct_is_passed_through() {
    let mut inputs = Inputs(39_001);
    for n in 1..6 {
        let cfg = Settings {
            scale: 1.0 + inputs.next(),
            n,
        };
        let w = inputs.vec(n + 1);
        let (v, g): (f64, Vec<f64>) = scaled_cubes_grad(&w, &cfg);
        let plain = |w: &[f64]| (0..n).map(|i| cfg.scale * w[i].powi(3)).sum::<f64>();
        assert!((v - plain(&w)).abs() < 1e-12);
        assert_fd_gradient(plain, &w, &g, "scaled_cubes_grad");
        for i in 0..=n {
            let expected = if i < n {
                3.0 * cfg.scale * w[i] * w[i]
            } else {
                0.0
            };
            assert!((g[i] - expected).abs() < 1e-12, "component {i}");
        }
        // The Hessian, by hand: diagonal, 6 scale w_i for the first n, zero for the last.
        let (vh, gh, h) = scaled_cubes_hessian(&w, &cfg);
        assert!((vh - v).abs() < 1e-12);
        assert_all_close(&gh, &g, 1e-12, "scaled_cubes_hessian's gradient");
        for i in 0..=n {
            for j in 0..=n {
                let expected = if i == j && i < n {
                    6.0 * cfg.scale * w[i]
                } else {
                    0.0
                };
                assert!((h[i][j] - expected).abs() < 1e-10, "h[{i}][{j}]");
            }
        }
    }
}

/// A grid's spacing, size and boundary: a data struct whose method reads an integer, a flag and a float
/// field of its constant `self` at `order = 2`.
pub struct Grid {
    pub h: f64,
    pub n: usize,
    pub periodic: bool,
}

impl Grid {
    /// A discrete Dirichlet energy of `u` with a quartic term: sum over neighbours of ((u_{i+1} - u_i) /
    /// h)^2 / 2 + u_i^4 / 4, the last neighbour wrapping around where `periodic`.
    #[differentiable(order = 2, wrt(u))]
    pub fn energy(&self, u: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 0..self.n {
            e += 0.25 * u[i] * u[i] * u[i] * u[i];
            if i + 1 < self.n {
                let d = (u[i + 1] - u[i]) / self.h;
                e += 0.5 * d * d;
            } else if self.periodic {
                let d = (u[0] - u[i]) / self.h;
                e += 0.5 * d * d;
            }
        }
        e
    }
}

#[test]
fn a_data_struct_s_integer_and_flag_fields_at_order_2() {
    let mut inputs = Inputs(40_001);
    for n in 2..7 {
        for periodic in [false, true] {
            let grid = Grid {
                h: 0.5 + inputs.next().abs(),
                n,
                periodic,
            };
            let u = inputs.vec(n);
            let (v, g) = grid.energy_grad(&u);
            let plain = |u: &[f64]| {
                let mut e: f64 = u.iter().map(|x| 0.25 * x.powi(4)).sum();
                let last = if periodic { n } else { n - 1 };
                for i in 0..last {
                    let d = (u[(i + 1) % n] - u[i]) / grid.h;
                    e += 0.5 * d * d;
                }
                e
            };
            assert!((v - plain(&u)).abs() < 1e-12);
            assert_fd_gradient(plain, &u, &g, "energy_grad");
            // The Hessian, by hand: 3 u_i^2 on the diagonal plus the graph Laplacian over h^2.
            let (_, _, hess) = grid.energy_hessian(&u);
            let mut expected = vec![vec![0.0; n]; n];
            for i in 0..n {
                expected[i][i] += 3.0 * u[i] * u[i];
            }
            let last = if periodic { n } else { n - 1 };
            let k = 1.0 / (grid.h * grid.h);
            for i in 0..last {
                let j = (i + 1) % n;
                expected[i][i] += k;
                expected[j][j] += k;
                expected[i][j] -= k;
                expected[j][i] -= k;
            }
            for i in 0..n {
                assert_all_close(&hess[i], &expected[i], 1e-10, "energy_hessian");
            }
        }
    }
}

#[test]
fn a_data_struct_is_passed_on_to_calls() {
    let mut inputs = Inputs(39_002);
    for m in 1..8 {
        let d = data(&mut inputs, m);
        let cfg = Settings {
            scale: 0.5 + inputs.next().abs(),
            n: 0,
        };
        let w = inputs.vec(2);
        let plain = |w: &[f64]| {
            let mut s = 0.0;
            for i in 0..m {
                let r = w[0] * d.xs[i] + w[1] - d.ys[i];
                s += r * r;
            }
            s / m as f64 + cfg.scale * (w[0] * w[0] + w[1] * w[1])
        };
        let (v, g) = regularised_grad(&w, &d, &cfg);
        assert!((v - plain(&w)).abs() < 1e-12);
        assert_fd_gradient(plain, &w, &g, "regularised_grad");
        // The other generated items agree with `_grad`.
        let d_ret = inputs.next();
        let (vv, gv) = regularised_vjp(&w, &d, &cfg, d_ret);
        assert!((vv - v).abs() < 1e-12);
        assert_all_close(
            &gv,
            &g.iter().map(|x| x * d_ret).collect::<Vec<_>>(),
            1e-12,
            "vjp",
        );
        let t = inputs.vec(2);
        let (vj, dv) = regularised_jvp(&w, &d, &cfg, t.clone());
        assert!((vj - v).abs() < 1e-12);
        assert!((dv - (g[0] * t[0] + g[1] * t[1])).abs() < 1e-10);
        let mut buffer = [f64::NAN; 2];
        let vi = regularised_grad_into(&w, &d, &cfg, &mut buffer);
        assert!((vi - v).abs() < 1e-12);
        assert_all_close(&buffer, &g, 1e-12, "grad_into");
        // The method of the data struct.
        let (vm, gm) = d.loss_grad(&w);
        assert!((vm - 0.5 * fit(&w, &d)).abs() < 1e-12);
        let (_, gf) = fit_grad(&w, &d);
        assert_all_close(
            &gm,
            &gf.iter().map(|x| 0.5 * x).collect::<Vec<_>>(),
            1e-12,
            "method",
        );
    }
}

#[test]
fn an_enum_passed_to_a_method_is_passed_through() {
    let mut inputs = Inputs(39_003);
    for _ in 0..20 {
        let x = 2.0 * inputs.next();
        let k = inputs.next();
        for mode in [Mode::Square, Mode::Cube] {
            let (v, (gx, gk)): (f64, (f64, f64)) = powered_grad(x, mode, k);
            let p = mode.power();
            assert!((v - (k * x.powi(p) + x.sin())).abs() < 1e-12);
            let dx = k * f64::from(p) * x.powi(p - 1) + x.cos();
            assert!((gx - dx).abs() < 1e-10 && (gk - x.powi(p)).abs() < 1e-12);
            let (v, g): (f64, f64) = mode_copied_grad(x, mode);
            assert!((v - x.powi(p)).abs() < 1e-12);
            assert!((g - f64::from(p) * x.powi(p - 1)).abs() < 1e-10);
            // Second order, by hand: `x^(p+1) + 2 x^p + sin x + 2 x^p`.
            let pf = f64::from(p);
            let value = x.powi(p + 1) + 4.0 * x.powi(p) + x.sin();
            let d1 = (pf + 1.0) * x.powi(p) + 4.0 * pf * x.powi(p - 1) + x.cos();
            let d2 =
                (pf + 1.0) * pf * x.powi(p - 1) + 4.0 * pf * (pf - 1.0) * x.powi(p - 2) - x.sin();
            let (v, g, h) = outer_hessian(x, mode);
            assert!(
                (v - value).abs() < 1e-12 && (g - d1).abs() < 1e-10,
                "{v} {g}"
            );
            assert!(
                (h[0][0] - d2).abs() < 1e-9 * (1.0 + d2.abs()),
                "{} {d2}",
                h[0][0]
            );
            let [f0, f1, f2] = outer_derivatives(x, mode);
            assert!(
                (f0 - value).abs() < 1e-12
                    && (f1 - d1).abs() < 1e-10
                    && (f2 - d2).abs() < 1e-9 * (1.0 + d2.abs())
            );
            let (_, (gx, gk), (hx, hk)) = powered_hvp(x, mode, k, (1.0, 0.0));
            assert!(
                (gx - (k * pf * x.powi(p - 1) + x.cos())).abs() < 1e-10
                    && (gk - x.powi(p)).abs() < 1e-12
            );
            let hxx = k * pf * (pf - 1.0) * x.powi(p - 2) - x.sin();
            assert!(
                (hx - hxx).abs() < 1e-9 * (1.0 + hxx.abs())
                    && (hk - pf * x.powi(p - 1)).abs() < 1e-10
            );
        }
    }
}

#[test]
fn a_parameter_struct_beside_a_data_struct_keeps_its_gradient() {
    let mut inputs = Inputs(39_004);
    for m in 1..6 {
        let d = data(&mut inputs, m);
        let line = Line {
            slope: inputs.next(),
            offset: inputs.next(),
        };
        let (v, g): (f64, Line) = line_loss_grad(&line, &d);
        let plain = |p: &[f64]| {
            (0..m)
                .map(|i| (p[0] * d.xs[i] + p[1] - d.ys[i]).powi(2))
                .sum::<f64>()
        };
        let flat = [line.slope, line.offset];
        assert!((v - plain(&flat)).abs() < 1e-12);
        assert_fd_gradient(plain, &flat, &[g.slope, g.offset], "line_loss_grad");
    }
}

/// A `#[no_grad]` integer field whose only use is as an argument of a function of this module taking an
/// integer there (`partial_sum(.., p.terms)`): the macro reads the callee's signature in the source
/// (`context::sibling_integer_parameters`), so the field is an integer, a constant. Before, the call asked
/// the callee for a derivative in that position (rustc's E0308 at the callee's gradient tuple).
mod integer_field_passed_on {
    use super::common::{assert_fd_gradient, hessian_column, Inputs};
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Series {
        pub a: f64,
        pub b: Vec<f64>,
        #[no_grad]
        pub terms: usize,
    }

    /// `x + x^2 + .. + x^n`.
    #[differentiable]
    fn partial_sum(x: f64, n: usize) -> f64 {
        let mut s = 0.0;
        let mut power = 1.0;
        for _ in 0..n {
            power *= x;
            s += power;
        }
        s
    }

    #[differentiable(order = 2)]
    fn series_energy(p: &Series, x: f64) -> f64 {
        p.a * partial_sum(x * p.b[0], p.terms) + p.b[1] * x
    }

    /// The same of a method: `Self::series(x, self.terms)`, the associated function of the `impl`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Swing {
        pub k: f64,
        #[no_grad]
        pub terms: usize,
    }

    impl Swing {
        #[differentiable]
        fn series(x: f64, n: usize) -> f64 {
            let mut s = 0.0;
            let mut power = 1.0;
            for _ in 0..n {
                power *= x;
                s += power;
            }
            s
        }

        #[differentiable(wrt(self, x), order = 2)]
        fn energy(&self, x: f64) -> f64 {
            self.k * Self::series(x, self.terms)
        }
    }

    #[test]
    fn of_a_method() {
        let mut inputs = Inputs(39_006);
        for terms in 0..5 {
            let (k, x) = (inputs.next(), inputs.next());
            let swing = Swing { k, terms };
            let sum = |x: f64| (1..=terms).map(|i| x.powi(i as i32)).sum::<f64>();
            let d_sum = |x: f64| {
                (1..=terms)
                    .map(|i| i as f64 * x.powi(i as i32 - 1))
                    .sum::<f64>()
            };
            let dd_sum = |x: f64| {
                (2..=terms)
                    .map(|i| (i * (i - 1)) as f64 * x.powi(i as i32 - 2))
                    .sum::<f64>()
            };
            let (value, (gs, gx)): (f64, (Swing, f64)) = swing.energy_grad(x);
            assert!((value - k * sum(x)).abs() < 1e-12);
            assert!((gs.k - sum(x)).abs() < 1e-12 && (gx - k * d_sum(x)).abs() < 1e-12);
            assert_eq!(gs.terms, terms);
            let (_, _, h) = swing.energy_hessian(x);
            let expected = [[0.0, d_sum(x)], [d_sum(x), k * dd_sum(x)]];
            for i in 0..2 {
                for j in 0..2 {
                    assert!(
                        (h[i][j] - expected[i][j]).abs() < 1e-10,
                        "H[{i}][{j}] {h:?}"
                    );
                }
            }
        }
    }

    /// The function written out, over the flat inputs `(a, b0, b1, x)`.
    fn plain(v: &[f64], terms: usize) -> f64 {
        let y = v[3] * v[1];
        v[0] * (1..=terms).map(|k| y.powi(k as i32)).sum::<f64>() + v[2] * v[3]
    }

    #[test]
    fn first_and_second_order() {
        let mut inputs = Inputs(39_005);
        for terms in 0..5 {
            let v = [inputs.next(), inputs.next(), inputs.next(), inputs.next()];
            let p = Series {
                a: v[0],
                b: vec![v[1], v[2]],
                terms,
            };
            let (value, (gp, gx)): (f64, (Series, f64)) = series_energy_grad(&p, v[3]);
            assert!((value - plain(&v, terms)).abs() < 1e-12);
            assert_eq!(gp.terms, terms);
            let flat = [gp.a, gp.b[0], gp.b[1], gx];
            assert_fd_gradient(|w| plain(w, terms), &v, &flat, "series_energy_grad");
            let (_, _, h) = series_energy_hessian(&p, v[3]);
            let grad = |w: &[f64]| {
                let q = Series {
                    a: w[0],
                    b: vec![w[1], w[2]],
                    terms,
                };
                let (_, (g, gx)) = series_energy_grad(&q, w[3]);
                vec![g.a, g.b[0], g.b[1], gx]
            };
            for i in 0..4 {
                let column = hessian_column(grad, &v, i);
                for j in 0..4 {
                    let (a, e) = (h[j][i], column[j]);
                    assert!(
                        (a - e).abs() < 1e-6 * (1.0 + e.abs()),
                        "H[{j}][{i}] {a} {e}"
                    );
                }
            }
        }
    }
}
