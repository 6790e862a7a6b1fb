//! A parameter struct named like a standard type: an RNN's `Cell`, declared in one module and imported by
//! name into another. The name was taken for `std::cell::Cell` (`signature.rs`, `struct_type`), so
//! `wrt(c)` was refused ("`c` cannot be differentiated") and its fields "not supported"; a name in that
//! list is now the file's struct where the file declares one.

#![allow(clippy::needless_range_loop)] // the user forms index their slices

mod common;

use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, points};

pub mod model {
    use autodiff::{differentiable, Differentiable};

    /// A two-unit recurrent cell.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Cell {
        pub w: [f64; 3],
        pub u: [[f64; 2]; 2],
        #[no_grad]
        pub steps: usize,
    }

    impl Cell {
        #[differentiable(wrt(self), order = 2)]
        pub fn step(&self, h: [f64; 2], x: f64) -> f64 {
            let a = self.u[0][0] * h[0] + self.u[0][1] * h[1] + self.w[0] * x;
            let b = self.u[1][0] * h[0] + self.u[1][1] * h[1] + self.w[1] * x;
            a.tanh() * self.w[2] + b.tanh()
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn run(&self, xs: &[f64]) -> f64 {
            let mut h = [0.0, 0.0];
            let mut total = 0.0;
            for t in 0..self.steps.min(xs.len()) {
                let y = self.step(h, xs[t]);
                h = [y, h[0]];
                total += y * y;
            }
            total
        }
    }
}

pub mod train {
    use super::model::Cell;
    use autodiff::differentiable;

    #[differentiable(wrt(c), order = 2)]
    pub fn objective(c: &Cell, xs: &[f64], lambda: f64) -> f64 {
        let mut reg = 0.0;
        for i in 0..3 {
            reg += c.w[i] * c.w[i];
        }
        c.run(xs) + lambda * reg
    }
}

use model::Cell;

const XS: [f64; 4] = [0.3, -0.7, 1.1, 0.2];
const LAMBDA: f64 = 0.05;

fn cell_of(z: &[f64]) -> Cell {
    Cell {
        w: [z[0], z[1], z[2]],
        u: [[z[3], z[4]], [z[5], z[6]]],
        steps: 3,
    }
}

/// The objective written again without the macro: the oracle of the differences.
fn by_hand(z: &[f64]) -> f64 {
    let (w, u) = (&z[0..3], [[z[3], z[4]], [z[5], z[6]]]);
    let mut h = [0.0, 0.0];
    let mut total = 0.0;
    for &x in &XS[..3] {
        let a = u[0][0] * h[0] + u[0][1] * h[1] + w[0] * x;
        let b = u[1][0] * h[0] + u[1][1] * h[1] + w[1] * x;
        let y = a.tanh() * w[2] + b.tanh();
        h = [y, h[0]];
        total += y * y;
    }
    total + LAMBDA * w.iter().map(|v| v * v).sum::<f64>()
}

fn grad(z: &[f64]) -> (f64, Vec<f64>) {
    let (v, g) = train::objective_grad(&cell_of(z), &XS, LAMBDA);
    (v, autodiff::Differentiable::to_flat(&g))
}

#[test]
fn a_struct_named_cell_is_differentiated_at_order_2() {
    for z in points(43_011, 7, 12, -1.0, 1.0) {
        let (v, g) = grad(&z);
        assert_close(v, by_hand(&z), 1e-12, "objective: value");
        assert_fd_gradient(by_hand, &z, &g, "objective_grad");
        let (hv, hg, h) = train::objective_hessian(&cell_of(&z), &XS, LAMBDA);
        let hg = autodiff::Differentiable::to_flat(&hg);
        assert_close(hv, v, 1e-12, "objective_hessian: value");
        assert_all_close(&hg, &g, 1e-10, "objective_hessian: gradient");
        assert_hessian_fd(&h, |y| grad(y).1, &z, 1e-5, "objective_hessian");
        // The method's own gradient: the objective's less the regulariser's.
        let (rv, rg) = cell_of(&z).run_grad(&XS);
        let rg = autodiff::Differentiable::to_flat(&rg);
        let mut expected = g.clone();
        for i in 0..3 {
            expected[i] -= 2.0 * LAMBDA * z[i];
        }
        assert_close(
            rv,
            v - LAMBDA * (z[0] * z[0] + z[1] * z[1] + z[2] * z[2]),
            1e-12,
            "run",
        );
        assert_all_close(&rg, &expected, 1e-10, "run_grad against objective_grad");
    }
}
