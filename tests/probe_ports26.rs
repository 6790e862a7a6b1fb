//! A trust probe written as a new user would: the test programs of other AD projects, written anew in
//! plain Rust in the form their sources use (never their code beyond the few lines of a numeric
//! function; each cites the original it follows).
//!
//! - rust-lang/rust's `std::autodiff` tests (`tests/codegen-llvm/autodiff/`, `tests/pretty/autodiff/`,
//!   `tests/run-make/autodiff/type-trees/`, `tests/ui/autodiff/`): squares of references, arrays,
//!   tuples (by value, of references, behind a reference), structs by value and nested, an f32 function
//!   with an f64 result, a generic, a method writing an output parameter, sums into outputs, a linear
//!   map of f32 and its forward columns, `windows(2)`, a long f32 array beside an integer field, a
//!   three-deep nested array, a self-referential struct, copies into locals, functions inside functions
//!   and written by `macro_rules!`.
//! - ADBench as rustc's `tests/ui/autodiff/adbench/*/src/safe.rs` writes it: bundle adjustment through
//!   helpers writing output parameters (`project`, `rodrigues_rotate_point`, `radial_distort` of a
//!   sub-slice), the GMM objective with its workspaces, the LSTM, the Brusselator's right-hand side, and
//!   an FFT and its inverse (in-place permutation and recursive butterflies), whose composition is the
//!   identity.
//! - Enzyme's integration tests not ported before: `controlflow`, `nested-predicate`,
//!   `nested_guard_inactive_lcssa`, `headerremat`, `activity`, `substencil_weights` (WENO5-JS, WENO5-Z at
//!   its kink, TENO5), `overwrite_outer_loop`, `boundissue`, `fixed_point_counted`.
//! - `found`: the minimal program of the wrong gradient this probe found (integer compound assignments
//!   `>>=`, `<<=`, `&=`, `|=`, `^=` dropped).
//!
//! Every derivative is checked against central differences (`common::probe`) at seeded points, and
//! against the original's expected values or a derivative worked out by hand where there is one; `_jvp`
//! against `_vjp` (`c . J t = (c J) . t`), `order = 2` Hessians against differences of `_grad`.

// The forms of the ported sources: index loops, `a = a * l`, element-by-element copies, swaps through a
// temporary, `i <= n - 1`, `cross(&w, &pt)` of references, a counter beside a loop, the originals'
// constants (3.14, 6.28); function-pointer types spell out the generated signatures.
#![allow(
    clippy::needless_range_loop,
    clippy::approx_constant,
    clippy::assign_op_pattern,
    clippy::explicit_counter_loop,
    clippy::int_plus_one,
    clippy::manual_memcpy,
    clippy::manual_swap,
    clippy::needless_borrow,
    clippy::type_complexity
)]

mod common;

use common::probe::*;

const POINTS: usize = 10;

/// The minimal programs of what this probe found wrong.
pub mod found {
    use autodiff::differentiable;

    /// An integer updated by `>>=`, `<<=`, `&=`, `|=` and `^=`, steering a float result. Those
    /// compound assignments were lowered as values and dropped, so `m` and `k` never changed: the
    /// generated items computed another function (`fft`'s `bitreversal_perm` permuted differently
    /// inside its `_vjp` than the primal did, from 16 elements on).
    #[differentiable(order = 2)]
    pub fn bits(x: f64, n: u32) -> f64 {
        let mut m = n;
        let mut k = 1u32;
        let mut s = 0.0;
        for _ in 0..4 {
            if m & 1 == 1 {
                s += x.powi(k as i32);
            }
            m >>= 1;
            k <<= 1;
        }
        let mut mask = n;
        mask &= 0b1010;
        mask |= 1;
        mask ^= 0b100;
        s + x * mask as f64
    }
}

/// EnzymeAD/Enzyme `enzyme/test/Integration/ReverseMode` and `ForwardMode` programs not ported before.
pub mod enzyme {
    use autodiff::differentiable;

    // ReverseMode/controlflow.c: two blocks that jump to each other (`goto`) until a test passes,
    // updating `x` in place; a step count bounds the loop (the original has none).
    #[differentiable]
    pub fn controlflow(x: &mut [f64; 2]) {
        let mut block_a = true;
        let mut steps = 0;
        loop {
            let t;
            if block_a {
                t = 4.0 * (x[0] + x[1]).cos();
                x[0] = 3.0 * (2.0 * x[0] + x[1]).sin();
                x[1] = t;
            } else {
                t = 4.0 * (2.0 * x[0] + x[1]).sin();
                x[0] = 4.0 * (x[0] + 2.0 * x[1]).cos();
                x[1] = t;
            }
            steps += 1;
            if x[0] * x[0] < x[1] || steps == 50 {
                return;
            }
            block_a = x[0] > 0.0;
        }
    }

    // ReverseMode/nested-predicate.cpp `first` and nested_guard_inactive_lcssa.c: a unit vector
    // computed under a flag and never used; its NaN (sqrt of a negative sum) must not reach the
    // gradient of `fvec[0]`.
    #[differentiable(order = 2)]
    pub fn first(fvec: &[f64], fan: bool) -> f64 {
        let mut unit_rad = [0.0; 3];
        let mut radius = 0.0;
        if fan {
            unit_rad[0] = fvec[0];
            for i in 0..2 {
                radius += fvec[i];
            }
            radius = radius.sqrt();
            if radius > 0.0 {
                for i in 0..2 {
                    unit_rad[i] /= radius;
                }
            }
        }
        fvec[0]
    }

    // nested-predicate.cpp `second`: the same, the result through an output parameter.
    #[differentiable]
    pub fn second(fvec: &[f64], fan: bool, out: &mut f64) {
        let mut unit_rad = [0.0; 3];
        let mut radius = 0.0;
        if fan {
            for i in 0..3 {
                unit_rad[i] = fvec[i];
                radius += unit_rad[i] * unit_rad[i];
            }
            radius = radius.sqrt();
            if radius > 0.0 {
                for i in 0..3 {
                    unit_rad[i] /= radius;
                }
            }
        }
        *out = fvec[0] + fvec[1] + fvec[2];
    }

    fn evaluate_integrand(nr: i32, dtheta: i32) -> i32 {
        nr * dtheta
    }

    // ReverseMode/headerremat.c: floats truncated to integers steering a loop that scales an output
    // read before it is written, and a step size divided in place.
    #[differentiable]
    pub fn integrate_image(mut dr: f64, out: &mut [f64]) -> f64 {
        let mut dtheta = 1.0;
        let mut i_estimate = 0.0;
        for k in 0..10 {
            let nr = dr as i32;
            let ntheta = dtheta as i32;
            let sum: i32 = evaluate_integrand(nr, ntheta);
            out[k] *= (nr * ntheta) as f64;
            i_estimate = sum as f64 * dr;
            dr /= 0.8;
            dtheta = dr / 4.0;
        }
        i_estimate
    }

    // ReverseMode/overwrite_outer_loop.c: each outer iteration stores over the range the previous one
    // read, so the values read must be kept for the reverse sweep.
    #[differentiable]
    pub fn overwrite_outer(a: &mut [f64], offs: &[usize], n: usize, m: usize) -> f64 {
        let mut s = 0.0;
        if n == 0 || m == 0 {
            return 0.0;
        }
        for i in 0..n {
            let off = offs[i];
            for j in 0..m {
                let v = a[off + m + 1 + j];
                s += v * v;
                a[off + j] = 3.0;
            }
        }
        s
    }

    // ReverseMode/boundissue.c: an inclusive range whose end may be below its start.
    #[differentiable]
    pub fn alldiv(a: &mut [f64], n: i32) {
        for i in 0..=n {
            a[i as usize] *= a[i as usize];
        }
    }

    // ReverseMode/fixed_point_counted.c: sixteen steps of a contraction from zero, the state copied
    // back element by element, then a loss of the state and the parameters.
    #[differentiable(order = 2)]
    pub fn fixed_point(p: &[f64; 4]) -> f64 {
        let mut u = [0.0f64; 4];
        for _ in 0..16 {
            let mut tmp = [0.0; 4];
            for k in 0..4 {
                tmp[k] = 0.05 * (u[k] + u[(k + 1) % 4]).sin() + p[k] * p[k];
            }
            for k in 0..4 {
                u[k] = tmp[k];
            }
        }
        let mut s = 0.0;
        for k in 0..4 {
            s += u[k] * u[k] * p[k];
        }
        s
    }

    // ForwardMode/activity.c: a product of two helpers.
    #[differentiable]
    fn mysin(x: f64) -> f64 {
        x.sin()
    }

    #[differentiable]
    fn mycos(x: f64) -> f64 {
        x.cos()
    }

    #[differentiable(order = 2)]
    pub fn activity(x: f64) -> f64 {
        mysin(x) * mycos(x)
    }

    // ForwardMode/substencil_weights.c: WENO5-JS, WENO5-Z and TENO5 reconstructions of a face value
    // from five stencil values.

    pub const TENO_CT: f64 = 1.0e-5;
    const EPS_TENO: f64 = 1.0e-40;
    const EPS_WENOZ: f64 = 1.0e-40;
    const EPS_WENOJS: f64 = 1.0e-6;
    pub const D_OPT: [f64; 3] = [0.1, 0.6, 0.3];
    pub const SUB_COEFF: [f64; 9] = [
        1.0 / 3.0,
        -7.0 / 6.0,
        11.0 / 6.0,
        -1.0 / 6.0,
        5.0 / 6.0,
        1.0 / 3.0,
        1.0 / 3.0,
        5.0 / 6.0,
        -1.0 / 6.0,
    ];

    #[differentiable]
    pub fn smoothness(v: &[f64; 5], beta: &mut [f64; 3]) {
        let a0 = v[0] - 2.0 * v[1] + v[2];
        let b0 = v[0] - 4.0 * v[1] + 3.0 * v[2];
        let a1 = v[1] - 2.0 * v[2] + v[3];
        let b1 = v[1] - v[3];
        let a2 = v[2] - 2.0 * v[3] + v[4];
        let b2 = 3.0 * v[2] - 4.0 * v[3] + v[4];
        beta[0] = (13.0 / 12.0) * a0 * a0 + 0.25 * b0 * b0;
        beta[1] = (13.0 / 12.0) * a1 * a1 + 0.25 * b1 * b1;
        beta[2] = (13.0 / 12.0) * a2 * a2 + 0.25 * b2 * b2;
    }

    #[differentiable]
    fn candidates(v: &[f64; 5], f: &mut [f64; 3]) {
        f[0] = SUB_COEFF[0] * v[0] + SUB_COEFF[1] * v[1] + SUB_COEFF[2] * v[2];
        f[1] = SUB_COEFF[3] * v[1] + SUB_COEFF[4] * v[2] + SUB_COEFF[5] * v[3];
        f[2] = SUB_COEFF[6] * v[2] + SUB_COEFF[7] * v[3] + SUB_COEFF[8] * v[4];
    }

    #[differentiable]
    fn normalise(w: &[f64; 3], f: &[f64; 3]) -> f64 {
        (w[0] * f[0] + w[1] * f[1] + w[2] * f[2]) / (w[0] + w[1] + w[2])
    }

    #[differentiable(order = 2)]
    pub fn weno5js(v: &[f64; 5]) -> f64 {
        let mut beta = [0.0; 3];
        let mut f = [0.0; 3];
        let mut w = [0.0; 3];
        smoothness(v, &mut beta);
        candidates(v, &mut f);
        for k in 0..3 {
            let den = beta[k] + EPS_WENOJS;
            w[k] = D_OPT[k] / (den * den);
        }
        normalise(&w, &f)
    }

    #[differentiable(wrt(v))]
    pub fn weno5z_branch(v: &[f64; 5], sign: f64) -> f64 {
        let mut beta = [0.0; 3];
        let mut f = [0.0; 3];
        let mut w = [0.0; 3];
        smoothness(v, &mut beta);
        candidates(v, &mut f);
        let tau5 = sign * (beta[0] - beta[2]);
        for k in 0..3 {
            w[k] = D_OPT[k] * (1.0 + tau5 / (beta[k] + EPS_WENOZ));
        }
        normalise(&w, &f)
    }

    #[differentiable(order = 2)]
    pub fn weno5z(v: &[f64; 5]) -> f64 {
        let mut beta = [0.0; 3];
        let mut f = [0.0; 3];
        let mut w = [0.0; 3];
        smoothness(v, &mut beta);
        candidates(v, &mut f);
        let tau5 = (beta[0] - beta[2]).abs();
        for k in 0..3 {
            w[k] = D_OPT[k] * (1.0 + tau5 / (beta[k] + EPS_WENOZ));
        }
        normalise(&w, &f)
    }

    #[differentiable]
    pub fn teno5_cutoff(v: &[f64; 5], delta: &mut [f64; 3]) {
        let mut beta = [0.0; 3];
        let mut g = [0.0; 3];
        smoothness(v, &mut beta);
        let tau5 = (beta[0] - beta[2]).abs();
        let mut sum = 0.0;
        for k in 0..3 {
            let x = 1.0 + tau5 / (beta[k] + EPS_TENO);
            let x3 = x * x * x;
            g[k] = x3 * x3;
            sum += g[k];
        }
        for k in 0..3 {
            delta[k] = if g[k] / sum < TENO_CT { 0.0 } else { 1.0 };
        }
    }

    #[differentiable(order = 2)]
    pub fn teno5(v: &[f64; 5]) -> f64 {
        let mut delta = [0.0; 3];
        let mut f = [0.0; 3];
        let mut w = [0.0; 3];
        teno5_cutoff(v, &mut delta);
        candidates(v, &mut f);
        for k in 0..3 {
            w[k] = delta[k] * D_OPT[k];
        }
        let sum = w[0] + w[1] + w[2];
        if sum < EPS_TENO {
            return f[1];
        }
        (w[0] * f[0] + w[1] * f[1] + w[2] * f[2]) / sum
    }
}

/// rust-lang/rust `tests/codegen-llvm/autodiff/` and `tests/run-make/autodiff/type-trees/`.
pub mod rustc {
    use autodiff::{differentiable, Differentiable, Float};

    // codegen-llvm/autodiff/scalar.rs, identical_fnc.rs: the square of a float behind a reference.
    #[differentiable(order = 2)]
    pub fn square(x: &f64) -> f64 {
        x * x
    }

    // codegen-llvm/autodiff/typetree.rs.
    #[differentiable]
    pub fn simple(x: &f64) -> f64 {
        2.0 * x
    }

    // codegen-llvm/autodiff/batched.rs: the same at f32.
    #[differentiable]
    pub fn square32(x: &f32) -> f32 {
        x * x
    }

    // abi_handling.rs f1: an array behind a reference.
    #[differentiable]
    pub fn f1(x: &[f32; 2]) -> f32 {
        x[0] + x[1]
    }

    // abi_handling.rs f3: two references with a named lifetime.
    #[differentiable(order = 2)]
    pub fn f3<'a>(x: &'a f32, y: &'a f32) -> f32 {
        *x * *y
    }

    // abi_handling.rs f4: a tuple by value.
    #[differentiable(order = 2)]
    pub fn f4(x: (f32, f32)) -> f32 {
        x.0 * x.1
    }

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Input {
        pub x: f32,
        pub y: f32,
    }

    // abi_handling.rs f5: a struct by value.
    #[differentiable]
    pub fn f5(i: Input) -> f32 {
        i.x + i.y
    }

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Wrapper {
        pub z: f32,
    }

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct NestedInput {
        pub x: f32,
        pub y: Wrapper,
    }

    // abi_handling.rs f6: a field of a nested struct.
    #[differentiable]
    pub fn f6(i: NestedInput) -> f32 {
        i.x + i.y.z * i.y.z
    }

    // abi_handling.rs f7: a tuple of references (was "no parameter of `f7` is differentiated").
    #[differentiable]
    pub fn f7(x: (&f32, &f32)) -> f32 {
        x.0 * x.1
    }

    // The same at f64 with a Hessian, and destructured in the parameter pattern.
    #[differentiable(order = 2)]
    pub fn f7_twice(x: (&f64, &f64)) -> f64 {
        x.0 * x.1 * x.0
    }

    #[differentiable(order = 2)]
    pub fn f7_destructured((a, b): (&f64, &f64)) -> f64 {
        a * b + a.sin()
    }

    // sret.rs: f32 inputs, an f64 result through a cast.
    #[differentiable]
    pub fn primal(x: f32, y: f32) -> f64 {
        (x * x * y) as f64
    }

    // generic.rs: generic over the float type.
    #[differentiable(order = 2)]
    pub fn square_generic<T: Float>(x: &T) -> T {
        *x * *x
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct OptProblem {
        pub a: f64,
        pub b: f64,
    }

    impl OptProblem {
        // codegen-llvm/autodiff/impl.rs: a method writing its result through an output parameter.
        #[differentiable(wrt(self, x))]
        pub fn objective(&self, x: &[f64], out: &mut f64) {
            *out = self.a + x[0].sqrt() * self.b
        }
    }

    // codegen-llvm/autodiff/void_ret.rs: products into a local array, summed into an output.
    #[differentiable]
    pub fn products(r: &[f64; 10], res: &mut f64) {
        let mut output = [0.0; 10];
        output[0] = r[0];
        output[1] = r[1] * r[2];
        output[2] = r[4] * r[5];
        output[3] = r[2] * r[6];
        output[4] = r[1] * r[7];
        output[5] = r[2] * r[8];
        output[6] = r[1] * r[9];
        output[7] = r[5] * r[6];
        output[8] = r[5] * r[7];
        output[9] = r[4] * r[8];
        *res = output.iter().sum();
    }

    // codegen-llvm/autodiff/autodiffv2.rs: a linear map of f32 into an output slice, with asserts.
    #[differentiable]
    pub fn linear(x: &[f32], y: &mut [f32]) {
        assert!(x.len() >= 4);
        assert!(y.len() >= 5);
        y[0] = 4.3 * x[0] + 1.2 * x[1] + 3.4 * x[2] + 2.1 * x[3];
        y[1] = 2.3 * x[0] + 4.5 * x[1] + 1.7 * x[2] + 6.4 * x[3];
        y[2] = 1.1 * x[0] + 3.3 * x[1] + 2.5 * x[2] + 4.7 * x[3];
        y[3] = 5.2 * x[0] + 1.4 * x[1] + 2.6 * x[2] + 3.8 * x[3];
        y[4] = 1.0 * x[0] + 2.0 * x[1] + 3.0 * x[2] + 4.0 * x[3];
    }

    // run-make/autodiff/type-trees/iter/window.rs: `iter().map(..)` and `windows(2)` into outputs.
    #[differentiable(wrt(x))]
    pub fn window(x: &[f64; 3], args: &[f64; 3], y: &mut [f64; 2]) {
        y[0] = x.iter().map(|i| args[0] * i.powi(2)).sum();
        y[1] = x
            .windows(2)
            .map(|w| (args[1] - w[0]).powi(2) + args[2] * (w[1] - w[0].powi(2)).powi(2))
            .sum();
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Container {
        #[no_grad]
        pub header: i64,
        pub data: [f32; 1000],
    }

    // run-make/autodiff/type-trees/mixed-struct-typetree: an integer field beside a long f32 array.
    #[differentiable]
    pub fn mixed(container: &Container) -> f32 {
        container.data[0] + container.data[999]
    }

    // type-analysis/array3d: a three-deep nested array.
    #[differentiable]
    pub fn cube(x: &[[[f32; 2]; 2]; 2]) -> f32 {
        let mut sum = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    sum += x[i][j][k] * x[i][j][k];
                }
            }
        }
        sum
    }

    // tuple-typetree: a tuple behind a reference (was "no parameter of `weighted` is differentiated"),
    // with a product of its parts for a Hessian.
    #[differentiable(order = 2)]
    pub fn weighted(tuple: &(f64, f64, f64)) -> f64 {
        tuple.0 + tuple.1 * 2.0 + tuple.2 * 3.0 * tuple.0
    }

    // A tuple of constants passed by reference to a plain function stays as written (the tuples'
    // split, passing parts to `weighted(&t)` below, took it for a call of a split function).
    fn tuple_sum(t: &(f64, f64)) -> f64 {
        t.0 + t.1
    }

    // At `order = 2` too: its generic copy keeps the tuple as written (it passed `&(__S, __S)`, E0308).
    #[differentiable(order = 2)]
    pub fn constant_tuple_to_helper(x: f64) -> f64 {
        let c = (1.0, 2.0);
        x * x * tuple_sum(&c)
    }

    // Called with `&t` of a local tuple and with `&(..)` of a tuple built in place.
    #[differentiable(order = 2)]
    pub fn weighted_caller(a: f64, b: f64) -> f64 {
        let t = (a, b, a * b);
        weighted(&t) + weighted(&(b, a, 1.0))
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Node {
        pub value: f64,
        #[no_grad]
        pub next: Option<Box<Node>>,
    }

    // recursion-typetree: a self-referential struct, its link data.
    #[differentiable]
    pub fn node(node: &Node) -> f64 {
        node.value * 2.0
    }

    // type-analysis/memcpy: a copy into a local array, then a sum of squares.
    #[differentiable(order = 2)]
    pub fn copied(input: &[f64; 8]) -> f64 {
        let mut local_data = [0.0f64; 8];
        local_data.copy_from_slice(input);
        let mut result = 0.0;
        for i in 0..8 {
            result += local_data[i] * local_data[i];
        }
        result
    }

    // the same with the copy written as a user without copy_from_slice would.
    #[differentiable(order = 2)]
    pub fn copied_whole(input: &[f64; 8]) -> f64 {
        let local_data = *input;
        let mut result = 0.0;
        for i in 0..8 {
            result += local_data[i] * local_data[i];
        }
        result
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Header {
        pub tag: f32,
        pub data: Vec<f32>,
    }

    // slice-dst-typetree: a header and its data, summed by a turbofished iterator sum.
    #[differentiable]
    pub fn header_sum(value: &Header) -> f32 {
        value.tag + value.data.iter().sum::<f32>()
    }

    // rlib: a product of calls.
    #[differentiable]
    pub fn dep(x: f64, y: f64) -> f64 {
        x * y
    }

    #[differentiable]
    pub fn f2(x: f64) -> f64 {
        x.sin()
    }

    #[differentiable(order = 2)]
    pub fn lib_f1(x: f64) -> f64 {
        dep(x, x) * f2(x)
    }

    // ui/autodiff/macro_hygiene.rs: a differentiable function written by a `macro_rules!`.
    macro_rules! demo {
        () => {
            #[differentiable(order = 2)]
            pub fn from_macro(x: f64) -> f64 {
                x * x
            }
        };
    }
    demo!();

    // pretty/autodiff: a function defined inside a plain function.
    pub fn outer(x: f32) -> (f32, f32) {
        #[differentiable]
        fn inner(x: f32) -> f32 {
            x * x
        }
        (inner(x), inner_grad(x).1)
    }

    // pretty/autodiff/autodiff_forward.rs f7: an explicit `-> ()` with an unused float.
    // codegen-llvm/autodiff/zst.rs: a unit parameter.
}

/// rust-lang/rust `tests/ui/autodiff/adbench/`: ADBench's objectives as rustc's test crates write them
/// (`src/safe.rs`), with helpers writing through output parameters.
pub mod adbench {
    use autodiff::differentiable;
    use std::f64::consts::PI;

    // ---- ba/src/safe.rs ----

    #[differentiable]
    fn sqsum(x: &[f64]) -> f64 {
        x.iter().map(|&v| v * v).sum()
    }

    #[differentiable]
    fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    #[differentiable]
    fn radial_distort(rad_params: &[f64], proj: &mut [f64]) {
        let rsq = sqsum(proj);
        let l = 1. + rad_params[0] * rsq + rad_params[1] * rsq * rsq;
        proj[0] = proj[0] * l;
        proj[1] = proj[1] * l;
    }

    #[differentiable]
    fn rodrigues_rotate_point(rot: &[f64; 3], pt: &[f64; 3], rotated_pt: &mut [f64; 3]) {
        let sqtheta = sqsum(rot);
        if sqtheta != 0. {
            let theta = sqtheta.sqrt();
            let costheta = theta.cos();
            let sintheta = theta.sin();
            let theta_inverse = 1. / theta;
            let mut w = [0.; 3];
            for i in 0..3 {
                w[i] = rot[i] * theta_inverse;
            }
            let w_cross_pt = cross(&w, &pt);
            let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1. - costheta);
            for i in 0..3 {
                rotated_pt[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
            }
        } else {
            let rot_cross_pt = cross(&rot, &pt);
            for i in 0..3 {
                rotated_pt[i] = pt[i] + rot_cross_pt[i];
            }
        }
    }

    #[differentiable]
    fn project(cam: &[f64; 11], x: &[f64; 3], proj: &mut [f64; 2]) {
        let c = &cam[3..6];
        let mut xo = [0.; 3];
        let mut xcam = [0.; 3];

        xo[0] = x[0] - c[0];
        xo[1] = x[1] - c[1];
        xo[2] = x[2] - c[2];

        let rot = [cam[0], cam[1], cam[2]];
        rodrigues_rotate_point(&rot, &xo, &mut xcam);

        proj[0] = xcam[0] / xcam[2];
        proj[1] = xcam[1] / xcam[2];

        radial_distort(&cam[9..], proj);

        proj[0] = proj[0] * cam[6] + cam[7];
        proj[1] = proj[1] * cam[6] + cam[8];
    }

    #[differentiable(wrt(cam, x, w))]
    pub fn compute_reproj_error(
        cam: &[f64; 11],
        x: &[f64; 3],
        w: &[f64; 1],
        feat: &[f64; 2],
        err: &mut [f64; 2],
    ) {
        let w = w[0];
        let mut proj = [0.; 2];
        project(cam, x, &mut proj);
        err[0] = w * (proj[0] - feat[0]);
        err[1] = w * (proj[1] - feat[1]);
    }

    // ---- gmm/src/safe.rs ----

    /// `ln Γ(x)` by Stirling's series after shifting `x` above 7 (not differentiated: its arguments
    /// are constants of the objective).
    pub fn lgamma(mut x: f64) -> f64 {
        let mut shift = 0.0;
        while x < 7.0 {
            shift -= x.ln();
            x += 1.0;
        }
        let z = 1.0 / (x * x);
        shift + (x - 0.5) * x.ln() - x
            + 0.5 * (2.0 * PI).ln()
            + (1.0 / 12.0 - z * (1.0 / 360.0 - z / 1260.0)) / x
    }

    #[differentiable]
    fn arr_max(n: usize, x: &[f64]) -> f64 {
        let mut max = f64::NEG_INFINITY;
        for i in 0..n {
            if max < x[i] {
                max = x[i];
            }
        }
        max
    }

    #[differentiable]
    fn preprocess_qs(d: usize, k: usize, icf: &[f64], sum_qs: &mut [f64], qdiags: &mut [f64]) {
        let icf_sz = d * (d + 1) / 2;
        for ik in 0..k {
            sum_qs[ik] = 0.;
            for id in 0..d {
                let q = icf[ik * icf_sz + id];
                sum_qs[ik] = sum_qs[ik] + q;
                qdiags[ik * d + id] = q.exp();
            }
        }
    }

    #[differentiable]
    fn subtract(d: usize, x: &[f64], y: &[f64], out: &mut [f64]) {
        assert!(x.len() >= d);
        assert!(y.len() >= d);
        assert!(out.len() >= d);
        for i in 0..d {
            out[i] = x[i] - y[i];
        }
    }

    #[differentiable]
    fn qtimesx(d: usize, q_diag: &[f64], ltri: &[f64], x: &[f64], out: &mut [f64]) {
        assert!(out.len() >= d);
        assert!(q_diag.len() >= d);
        assert!(x.len() >= d);
        for i in 0..d {
            out[i] = q_diag[i] * x[i];
        }

        for i in 0..d {
            let mut lparamsidx = i * (2 * d - i - 1) / 2;
            for j in i + 1..d {
                out[j] = out[j] + ltri[lparamsidx] * x[i];
                lparamsidx += 1;
            }
        }
    }

    #[differentiable]
    fn log_sum_exp(n: usize, x: &[f64]) -> f64 {
        let mx = arr_max(n, x);
        let semx: f64 = x.iter().map(|x| (x - mx).exp()).sum();
        semx.ln() + mx
    }

    fn log_gamma_distrib(a: f64, p: f64) -> f64 {
        0.25 * p * (p - 1.) * PI.ln()
            + (1..=p as usize)
                .map(|j| lgamma(a + 0.5 * (1. - j as f64)))
                .sum::<f64>()
    }

    #[differentiable]
    fn sqnorm(x: &[f64]) -> f64 {
        x.iter().map(|x| x * x).sum()
    }

    // (`order = 2` for `gmm_objective`'s: a callee calling a plain function of floats, here
    // `log_gamma_distrib`, has a generic copy only when asked, as the error says.)
    #[differentiable(order = 2)]
    fn log_wishart_prior(
        p: usize,
        k: usize,
        gamma: f64,
        m: i32,
        sum_qs: &[f64],
        qdiags: &[f64],
        icf: &[f64],
    ) -> f64 {
        let n = p + m as usize + 1;
        let icf_sz = p * (p + 1) / 2;

        let c = n as f64 * p as f64 * (gamma.ln() - 0.5 * 2f64.ln())
            - log_gamma_distrib(0.5 * n as f64, p as f64);

        let out = (0..k)
            .map(|ik| {
                let frobenius =
                    sqnorm(&qdiags[ik * p..][..p]) + sqnorm(&icf[ik * icf_sz + p..][..icf_sz - p]);
                0.5 * gamma * gamma * (frobenius) - (m as f64) * sum_qs[ik]
            })
            .sum::<f64>();

        out - k as f64 * c
    }

    #[differentiable(wrt(alphas, means, icf), order = 2)]
    #[allow(clippy::too_many_arguments)]
    pub fn gmm_objective(
        d: usize,
        k: usize,
        n: usize,
        alphas: &[f64],
        means: &[f64],
        icf: &[f64],
        x: &[f64],
        gamma: f64,
        m: i32,
    ) -> f64 {
        let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * PI).ln();
        let icf_sz = d * (d + 1) / 2;

        let mut qdiags = vec![0.; d * k];
        let mut sum_qs = vec![0.; k];
        let mut xcentered = vec![0.; d];
        let mut qxcentered = vec![0.; d];
        let mut main_term = vec![0.; k];

        preprocess_qs(d, k, icf, &mut sum_qs, &mut qdiags);

        let mut slse = 0.;
        for ix in 0..n {
            for ik in 0..k {
                subtract(d, &x[ix * d..], &means[ik * d..], &mut xcentered);
                qtimesx(
                    d,
                    &qdiags[ik * d..],
                    &icf[ik * icf_sz + d..],
                    &xcentered,
                    &mut qxcentered,
                );
                main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(&qxcentered);
            }

            slse = slse + log_sum_exp(k, &main_term);
        }

        let lse_alphas = log_sum_exp(k, alphas);

        constant + slse - n as f64 * lse_alphas
            + log_wishart_prior(d, k, gamma, m, &sum_qs, &qdiags, icf)
    }

    // ---- lstm/src/safe.rs (the state of a layer, hidden then cell, as one slice) ----

    #[differentiable]
    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    #[differentiable]
    fn logsumexp(vect: &[f64]) -> f64 {
        let mut sum = 0.0;
        for &val in vect {
            sum += val.exp();
        }
        sum += 2.0;
        sum.ln()
    }

    #[differentiable]
    fn lstm_model(hsize: usize, weight: &[f64], bias: &[f64], state: &mut [f64], input: &[f64]) {
        let mut forget = vec![0.0; hsize];
        let mut ingate = vec![0.0; hsize];
        let mut outgate = vec![0.0; hsize];
        let mut change = vec![0.0; hsize];
        for i in 0..hsize {
            forget[i] = sigmoid(input[i] * weight[i] + bias[i]);
            ingate[i] = sigmoid(state[i] * weight[hsize + i] + bias[hsize + i]);
            outgate[i] = sigmoid(input[i] * weight[2 * hsize + i] + bias[2 * hsize + i]);
            change[i] = (state[i] * weight[3 * hsize + i] + bias[3 * hsize + i]).tanh();
        }
        for i in 0..hsize {
            state[hsize + i] = state[hsize + i] * forget[i] + ingate[i] * change[i];
        }
        for i in 0..hsize {
            state[i] = outgate[i] * state[hsize + i].tanh();
        }
    }

    #[differentiable]
    fn lstm_predict(
        l: usize,
        b: usize,
        w: &[f64],
        w2: &[f64],
        s: &mut [f64],
        x: &[f64],
        x2: &mut [f64],
    ) {
        for i in 0..b {
            x2[i] = x[i] * w2[i];
        }
        let mut input = vec![0.0; b];
        let mut i = 0;
        while i <= 2 * l * b - 1 {
            for k in 0..b {
                input[k] = if i == 0 { x2[k] } else { s[i - 2 * b + k] };
            }
            lstm_model(
                b,
                &w[i * 4..(i + b) * 4],
                &w[(i + b) * 4..(i + 2 * b) * 4],
                &mut s[i..i + 2 * b],
                &input,
            );
            i += 2 * b;
        }
        for k in 0..b {
            x2[k] = s[i - 2 * b + k] * w2[b + k] + w2[2 * b + k];
        }
    }

    #[differentiable(wrt(main_params, extra_params), order = 2)]
    pub fn lstm_objective(
        l: usize,
        c: usize,
        b: usize,
        main_params: &[f64],
        extra_params: &[f64],
        state: &[f64],
        sequence: &[f64],
    ) -> f64 {
        let mut total = 0.0;
        let mut s = vec![0.0; state.len()];
        for i in 0..state.len() {
            s[i] = state[i];
        }
        let mut input = &sequence[..b];
        let mut ypred = vec![0.0; b];
        let mut ynorm = vec![0.0; b];
        for j in 0..(c - 1) {
            let t = j * b;
            lstm_predict(l, b, main_params, extra_params, &mut s, input, &mut ypred);
            let lse = logsumexp(&ypred);
            for i in 0..b {
                ynorm[i] = ypred[i] - lse;
            }
            // (The original's `&sequence[t + b..]`, rebound to `input` of length `b`, panics in the
            // generated items: a slice rebound in a loop keeps its length; see `found`.)
            let ygold = &sequence[t + b..t + 2 * b];
            for i in 0..b {
                total += ygold[i] * ynorm[i];
            }
            input = ygold;
        }
        let count = (c - 1) * b;
        -total / count as f64
    }

    // ---- ode-real/src/safe.rs (a grid of N x N, smaller than the original's 32) ----

    pub const N: usize = 6;
    const XMIN: f64 = 0.;
    const XMAX: f64 = 1.;
    const YMIN: f64 = 0.;
    const YMAX: f64 = 1.;

    fn range(min: f64, max: f64, i: usize, n_var: usize) -> f64 {
        (max - min) / (n_var as f64 - 1.) * i as f64 + min
    }

    // (`#[differentiable]`: `t` is left out of `wrt(..)` below, but a plain helper taking it is
    // rejected; see `found`.)
    #[differentiable]
    fn brusselator_f(x: f64, y: f64, t: f64) -> f64 {
        let eq1 = (x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6) <= 0.1 * 0.1;
        let eq2 = t >= 1.1;
        if eq1 && eq2 {
            5.0
        } else {
            0.0
        }
    }

    #[differentiable(wrt(u, v, p))]
    pub fn brusselator_2d_loop(
        d_u: &mut [f64; N * N],
        d_v: &mut [f64; N * N],
        u: &[f64; N * N],
        v: &[f64; N * N],
        p: &[f64; 3],
        t: f64,
    ) {
        let a = p[0];
        let b = p[1];
        let alpha = p[2];
        let dx = 1. / (N - 1) as f64;
        let alpha = alpha / (dx * dx);
        for i in 0..N {
            for j in 0..N {
                let x = range(XMIN, XMAX, i, N);
                let y = range(YMIN, YMAX, j, N);
                let ip1 = if i == N - 1 { i } else { i + 1 };
                let im1 = if i == 0 { i } else { i - 1 };
                let jp1 = if j == N - 1 { j } else { j + 1 };
                let jm1 = if j == 0 { j } else { j - 1 };
                let u2v = u[N * i + j] * u[N * i + j] * v[N * i + j];
                d_u[N * i + j] = alpha
                    * (u[N * im1 + j] + u[N * ip1 + j] + u[N * i + jp1] + u[N * i + jm1]
                        - 4. * u[N * i + j])
                    + b
                    + u2v
                    - (a + 1.) * u[N * i + j]
                    + brusselator_f(x, y, t);
                d_v[N * i + j] = alpha
                    * (v[N * im1 + j] + v[N * ip1 + j] + v[N * i + jp1] + v[N * i + jm1]
                        - 4. * v[N * i + j])
                    + a * u[N * i + j]
                    - u2v;
            }
        }
    }

    // ---- fft/src/safe.rs (indices instead of split_at_mut and as_chunks_mut) ----

    #[differentiable]
    fn bitreversal_perm(data: &mut [f64]) {
        let len = data.len() / 2;
        let mut j = 1;
        for i in (1..data.len()).step_by(2) {
            if j > i {
                let t = data[j - 1];
                data[j - 1] = data[i - 1];
                data[i - 1] = t;
                let t = data[j];
                data[j] = data[i];
                data[i] = t;
            }
            let mut m = len;
            while m >= 2 && j > m {
                j -= m;
                m >>= 1;
            }
            j += m;
        }
    }

    #[differentiable]
    fn radix2(data: &mut [f64], start: usize, len: usize, i_sign: i32) {
        let n = len / 2;
        if n == 1 {
            return;
        }
        radix2(data, start, n, i_sign);
        radix2(data, start + n, n, i_sign);

        let wtemp = i_sign as f64 * (PI / n as f64).sin();
        let wpi = -i_sign as f64 * (2.0 * (PI / n as f64)).sin();
        let wpr = -2.0 * wtemp * wtemp;
        let mut wr = 1.0;
        let mut wi = 0.0;
        for c in 0..n / 2 {
            let (ax, ay) = (start + 2 * c, start + 2 * c + 1);
            let (bx, by) = (start + n + 2 * c, start + n + 2 * c + 1);
            let tempr = data[bx] * wr - data[by] * wi;
            let tempi = data[bx] * wi + data[by] * wr;
            data[bx] = data[ax] - tempr;
            data[by] = data[ay] - tempi;
            data[ax] += tempr;
            data[ay] += tempi;
            let wtemp_new = wr;
            wr = wr * (wpr + 1.0) - wi * wpi;
            wi = wi * (wpr + 1.0) + wtemp_new * wpi;
        }
    }

    #[differentiable]
    fn rescale(data: &mut [f64], scale: usize) {
        let scale = 1. / scale as f64;
        for elm in data.iter_mut() {
            *elm *= scale;
        }
    }

    #[differentiable]
    fn fft(data: &mut [f64]) {
        bitreversal_perm(data);
        radix2(data, 0, data.len(), 1);
    }

    #[differentiable]
    fn ifft(data: &mut [f64]) {
        bitreversal_perm(data);
        radix2(data, 0, data.len(), -1);
        rescale(data, data.len() / 2);
    }

    #[differentiable]
    pub fn foobar(data: &mut [f64]) {
        fft(data);
        ifft(data);
    }
}

#[test]
fn found_integer_compound_assignments() {
    let mut rng = Lcg::new(seed_of("bits"));
    for n in 0..16u32 {
        let mask = ((n & 0b1010) | 1) ^ 0b100;
        let x = rng.uniform(-1.5, 1.5);
        // Bit i of n (i < 4) adds x^(2^i).
        let (mut d1, mut d2) = (mask as f64, 0.0);
        let mut value = x * mask as f64;
        for i in 0..4 {
            if n >> i & 1 == 1 {
                let p = 1i32 << i;
                value += x.powi(p);
                d1 += p as f64 * x.powi(p - 1);
                d2 += (p * (p - 1)) as f64 * x.powi((p - 2).max(0));
            }
        }
        let (v, g) = found::bits_grad(x, n);
        assert_near(v, value, 1e-12, 1.0, &format!("bits({x}, {n})"));
        assert_near(g, d1, 1e-12, 1.0, &format!("bits'({x}, {n})"));
        assert_near(g, fd(|y| found::bits(y, n), x), 1e-7, 1.0, "bits' vs fd");
        let d = found::bits_derivatives(x, n);
        assert_near(d[2], d2, 1e-12, 1.0, &format!("bits''({x}, {n})"));
        assert_near(
            d[2],
            fd(|y| found::bits_grad(y, n).1, x),
            1e-6,
            1.0,
            "bits'' vs fd",
        );
        let (jv, jd) = found::bits_jvp(x, n, 0.5);
        assert_eq!(jv, v);
        assert_near(jd, 0.5 * d1, 1e-12, 1.0, "bits_jvp");
    }
}

// ---------------------------------------------------------------------------------------------------
// rust-lang/rust's std::autodiff tests
// ---------------------------------------------------------------------------------------------------

/// Central differences of a function of one scalar (step 1e-6, scaled).
fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    fd1(&f, x, 1e-6)
}

#[test]
fn rustc_squares_and_references() {
    // The originals' point: d(x^2)/dx = 6 at 3, d(2x)/dx = 2.
    assert_eq!(rustc::square_grad(&3.0), (9.0, 6.0));
    assert_eq!(rustc::simple_grad(&3.0), (6.0, 2.0));
    assert_eq!(rustc::square32_grad(&3.0), (9.0, 6.0));
    // batched.rs: forward mode along tangents 1, 2, 3, 0 gives 6, 12, 18, 0.
    for (t, e) in [(1.0, 6.0), (2.0, 12.0), (3.0, 18.0), (0.0, 0.0)] {
        assert_eq!(rustc::square32_jvp(&3.0, t), (9.0, e));
    }
    assert_eq!(rustc::square_generic_grad::<f64>(&3.0), (9.0, 6.0));
    assert_eq!(rustc::square_generic_grad::<f32>(&3.0), (9.0, 6.0));
    let mut rng = Lcg::new(seed_of("rustc_squares"));
    for _ in 0..POINTS {
        let x = rng.uniform(-3.0, 3.0);
        let (v, g) = rustc::square_grad(&x);
        assert_near(v, x * x, 1e-15, 0.0, "square");
        assert_near(g, 2.0 * x, 1e-15, 0.0, "square'");
        assert_near(g, fd(|y| rustc::square(&y), x), 1e-8, 1.0, "square' vs fd");
        let (_, _, h) = rustc::square_hessian(&x);
        assert_near(h[0][0], 2.0, 1e-12, 0.0, "square''");
        let (_, _, h) = rustc::square_generic_hessian(&x);
        assert_near(h[0][0], 2.0, 1e-12, 0.0, "square_generic''");
        // rlib: (x y) sin x at y = x, and its second derivative by differences of the first.
        let (v, g) = rustc::lib_f1_grad(x);
        assert_near(v, x * x * x.sin(), 1e-15, 1.0, "lib_f1");
        let e = 2.0 * x * x.sin() + x * x * x.cos();
        assert_near(g, e, 1e-12, 1.0, "lib_f1'");
        assert_near(g, fd(rustc::lib_f1, x), 1e-7, 1.0, "lib_f1' vs fd");
        let d = rustc::lib_f1_derivatives(x);
        let h = fd(|y| rustc::lib_f1_grad(y).1, x);
        assert_near(d[2], h, 1e-6, 1.0, "lib_f1'' vs fd of lib_f1'");
        let e2 = 2.0 * x.sin() + 4.0 * x * x.cos() - x * x * x.sin();
        assert_near(d[2], e2, 1e-12, 1.0, "lib_f1''");
        // A function written by a macro.
        assert_eq!(rustc::from_macro_grad(x), (x * x, 2.0 * x));
        assert_eq!(rustc::from_macro_derivatives(x)[2], 2.0);
        // A function defined inside a plain function.
        let (v, g) = rustc::outer(x as f32);
        assert_eq!(v, (x as f32) * (x as f32));
        assert_near(g as f64, 2.0 * (x as f32) as f64, 1e-6, 1.0, "inner'");
    }
}

#[test]
fn rustc_abi_handling() {
    // abi_handling.rs at x = 2, y = 3 with the tangent (1, 0).
    assert_eq!(rustc::f1_jvp(&[2.0, 3.0], [1.0, 0.0]), (5.0, 1.0));
    assert_eq!(rustc::f1_grad(&[2.0, 3.0]), (5.0, [1.0, 1.0]));
    assert_eq!(rustc::f3_jvp(&2.0, &3.0, (1.0, 0.0)), (6.0, 3.0));
    assert_eq!(rustc::f3_grad(&2.0, &3.0), (6.0, (3.0, 2.0)));
    let (_, _, h) = rustc::f3_hessian(&2.0, &3.0);
    assert_eq!(h, vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
    assert_eq!(rustc::f4_jvp((2.0, 3.0), (1.0, 0.0)), (6.0, 3.0));
    assert_eq!(rustc::f4_grad((2.0, 3.0)), (6.0, (3.0, 2.0)));
    let (_, _, h) = rustc::f4_hessian((2.0, 3.0));
    assert_eq!(h, vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
    let i = rustc::Input { x: 2.0, y: 3.0 };
    let (v, d) = rustc::f5_jvp(i, rustc::Input { x: 1.0, y: 0.0 });
    assert_eq!((v, d), (5.0, 1.0));
    let (v, g) = rustc::f5_grad(i);
    assert_eq!((v, g.x, g.y), (5.0, 1.0, 1.0));
    // f6: x + z^2 with (x, z) = (2, 3) and tangent (2, 4): 2 + 2 3 4 = 26.
    let n = rustc::NestedInput {
        x: 2.0,
        y: rustc::Wrapper { z: 3.0 },
    };
    let t = rustc::NestedInput {
        x: 2.0,
        y: rustc::Wrapper { z: 4.0 },
    };
    assert_eq!(rustc::f6_jvp(n, t), (11.0, 26.0));
    let (v, g) = rustc::f6_grad(n);
    assert_eq!((v, g.x, g.y.z), (11.0, 1.0, 6.0));
    // sret.rs: (x^2 y) as f64 at (3, 2.5): 22.5, gradient (15, 9).
    assert_eq!(rustc::primal_grad(3.0, 2.5), (22.5, (15.0, 9.0)));
    let mut rng = Lcg::new(seed_of("rustc_abi"));
    for _ in 0..POINTS {
        let (x, y) = (rng.uniform(-2.0, 2.0) as f32, rng.uniform(-2.0, 2.0) as f32);
        let (v, (gx, gy)) = rustc::primal_grad(x, y);
        assert_eq!(v, (x * x * y) as f64);
        let (x64, y64) = (x as f64, y as f64);
        assert_near(gx as f64, 2.0 * x64 * y64, 1e-6, 1.0, "primal_x");
        assert_near(gy as f64, x64 * x64, 1e-6, 1.0, "primal_y");
        let (_, d) = rustc::primal_jvp(x, y, (0.5, -1.0));
        assert_near(d, 0.5 * gx as f64 - gy as f64, 1e-6, 1.0, "primal_jvp");
    }
}

#[test]
fn rustc_tuples_of_references() {
    // abi_handling.rs f7 at (2, 3) along (1, 0); tuple-typetree's weights 1, 2, 3 (plus 3 x0 x2).
    assert_eq!(rustc::f7_jvp((&2.0, &3.0), (1.0, 0.0)), (6.0, 3.0));
    assert_eq!(rustc::f7_grad((&2.0, &3.0)), (6.0, (3.0, 2.0)));
    let mut rng = Lcg::new(seed_of("tuples of references"));
    for _ in 0..POINTS {
        let (a, b, c) = (
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
        );
        // a^2 b
        let (v, g, h) = rustc::f7_twice_hessian((&a, &b));
        assert_near(v, a * a * b, 1e-15, 1.0, "f7_twice");
        assert_vec_near(&[g.0, g.1], &[2.0 * a * b, a * a], 1e-14, "f7_twice'");
        let fd_g = fd_gradient(&|x| rustc::f7_twice((&x[0], &x[1])), &[a, b]);
        assert_vec_near(&[g.0, g.1], &fd_g, 1e-6, "f7_twice' vs fd");
        assert_vec_near(
            &h.concat(),
            &[2.0 * b, 2.0 * a, 2.0 * a, 0.0],
            1e-14,
            "f7_twice''",
        );
        // a b + sin a
        let (v, g) = rustc::f7_destructured_grad((&a, &b));
        assert_eq!(v, rustc::f7_destructured((&a, &b)));
        assert_vec_near(&[g.0, g.1], &[b + a.cos(), a], 1e-14, "f7_destructured'");
        let (_, _, h) = rustc::f7_destructured_hessian((&a, &b));
        assert_vec_near(
            &h.concat(),
            &[-a.sin(), 1.0, 1.0, 0.0],
            1e-14,
            "f7_destructured''",
        );
        // t0 + 2 t1 + 3 t0 t2
        let (v, g) = rustc::weighted_grad(&(a, b, c));
        assert_near(v, a + 2.0 * b + 3.0 * c * a, 1e-14, 1.0, "weighted");
        assert_vec_near(
            &[g.0, g.1, g.2],
            &[1.0 + 3.0 * c, 2.0, 3.0 * a],
            1e-14,
            "weighted'",
        );
        let fd_g = fd_gradient(&|x| rustc::weighted(&(x[0], x[1], x[2])), &[a, b, c]);
        assert_vec_near(&[g.0, g.1, g.2], &fd_g, 1e-6, "weighted' vs fd");
        let (_, d) = rustc::weighted_jvp(&(a, b, c), (0.5, -1.0, 2.0));
        assert_near(d, 0.5 * g.0 - g.1 + 2.0 * g.2, 1e-14, 1.0, "weighted_jvp");
        let (_, _, h) = rustc::weighted_hessian(&(a, b, c));
        let e = [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0];
        assert_vec_near(&h.concat(), &e, 1e-14, "weighted''");
        let (v, g) = rustc::constant_tuple_to_helper_grad(a);
        assert_near(v, 3.0 * a * a, 1e-15, 1.0, "constant_tuple_to_helper");
        assert_near(g, 6.0 * a, 1e-15, 1.0, "constant_tuple_to_helper'");
        // (a + 2 b + 3 a^2 b) + (b + 2 a + 3 b): 3a + 6b + 3a^2 b
        let (v, g, h) = rustc::weighted_caller_hessian(a, b);
        assert_near(
            v,
            3.0 * a + 6.0 * b + 3.0 * a * a * b,
            1e-13,
            1.0,
            "weighted_caller",
        );
        let e = [3.0 + 6.0 * a * b, 6.0 + 3.0 * a * a];
        assert_vec_near(&[g.0, g.1], &e, 1e-13, "weighted_caller'");
        let fd_g = fd_gradient(&|x| rustc::weighted_caller(x[0], x[1]), &[a, b]);
        assert_vec_near(&[g.0, g.1], &fd_g, 1e-6, "weighted_caller' vs fd");
        let e = [6.0 * b, 6.0 * a, 6.0 * a, 0.0];
        assert_vec_near(&h.concat(), &e, 1e-13, "weighted_caller''");
    }
}

#[test]
fn rustc_type_trees() {
    let mut rng = Lcg::new(seed_of("rustc_type_trees"));
    for _ in 0..POINTS {
        // array3d: sum of squares of a 2x2x2 array of f32; the original checks 2 x.
        let mut x = [[[0.0f32; 2]; 2]; 2];
        for a in x.iter_mut().flatten().flatten() {
            *a = rng.uniform(-2.0, 2.0) as f32;
        }
        let (v, g) = rustc::cube_grad(&x);
        assert_eq!(v, rustc::cube(&x));
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    assert_near(
                        g[i][j][k] as f64,
                        2.0 * x[i][j][k] as f64,
                        1e-6,
                        1.0,
                        "cube",
                    );
                }
            }
        }
        // memcpy: a copy into a local, then the sum of squares; gradient 2x, Hessian 2 I.
        let input: [f64; 8] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        for (name, grad, hessian) in [
            (
                "copied",
                rustc::copied_grad as fn(&[f64; 8]) -> (f64, [f64; 8]),
                rustc::copied_hessian as fn(&[f64; 8]) -> (f64, [f64; 8], Vec<Vec<f64>>),
            ),
            (
                "copied_whole",
                rustc::copied_whole_grad,
                rustc::copied_whole_hessian,
            ),
        ] {
            let (v, g) = grad(&input);
            assert_near(v, dot(&input, &input), 1e-12, 1.0, name);
            let fd_g = fd_gradient(&|x| rustc::copied(x.try_into().unwrap()), &input);
            assert_vec_near(&g, &fd_g, 1e-6, name);
            for i in 0..8 {
                assert_near(g[i], 2.0 * input[i], 1e-12, 1.0, name);
            }
            let (_, _, h) = hessian(&input);
            for i in 0..8 {
                for j in 0..8 {
                    let e = if i == j { 2.0 } else { 0.0 };
                    assert_near(h[i][j], e, 1e-12, 0.0, name);
                }
            }
        }
        // mixed-struct: an i64 beside [f32; 1000]; the gradient is 1 at both ends, 0 elsewhere, and
        // the integer is copied.
        let mut container = rustc::Container {
            header: 42,
            data: [0.0; 1000],
        };
        for a in container.data.iter_mut() {
            *a = rng.uniform(-1.0, 1.0) as f32;
        }
        let (v, g) = rustc::mixed_grad(&container);
        assert_eq!(v, container.data[0] + container.data[999]);
        assert_eq!(g.header, 42);
        for (i, d) in g.data.iter().enumerate() {
            assert_eq!(*d, if i == 0 || i == 999 { 1.0 } else { 0.0 }, "mixed[{i}]");
        }
        // recursion-typetree: the link is data.
        let node = rustc::Node {
            value: rng.uniform(-1.0, 1.0),
            next: Some(Box::new(rustc::Node {
                value: 7.0,
                next: None,
            })),
        };
        let (v, g) = rustc::node_grad(&node);
        assert_eq!((v, g.value), (2.0 * node.value, 2.0));
        // slice-dst: the tag plus the sum of the data.
        let header = rustc::Header {
            tag: rng.uniform(-1.0, 1.0) as f32,
            data: (0..5).map(|_| rng.uniform(-1.0, 1.0) as f32).collect(),
        };
        let (v, g) = rustc::header_sum_grad(&header);
        assert_eq!(v, rustc::header_sum(&header));
        assert_eq!(g.tag, 1.0);
        assert_eq!(g.data, vec![1.0; 5]);
    }
}

#[test]
fn rustc_outputs() {
    // impl.rs: out = a + sqrt(x0) b at a = 1, b = 2, x = [2].
    let p = rustc::OptProblem { a: 1.0, b: 2.0 };
    let mut out = f64::NAN;
    let (gp, gx) = p.objective_vjp(&[2.0], &mut out, 1.0);
    assert_eq!(out, 1.0 + 2.0_f64.sqrt() * 2.0);
    assert_near(gp.a, 1.0, 1e-15, 0.0, "d out / d a");
    assert_near(gp.b, 2.0_f64.sqrt(), 1e-15, 0.0, "d out / d b");
    assert_near(
        gx[0],
        2.0 / (2.0 * 2.0_f64.sqrt()),
        1e-15,
        0.0,
        "d out / d x0",
    );
    // void_ret.rs: the sum of ten products of the inputs, at 3.1 everywhere and at random points.
    let mut rng = Lcg::new(seed_of("rustc_outputs"));
    for trial in 0..POINTS {
        let r: [f64; 10] = if trial == 0 {
            [3.1; 10]
        } else {
            std::array::from_fn(|_| rng.uniform(-2.0, 2.0))
        };
        let c = rng.uniform(-2.0, 2.0);
        let mut res = f64::NAN;
        let g = rustc::products_vjp(&r, &mut res, c);
        let primal = |x: &[f64]| {
            let mut res = f64::NAN;
            rustc::products(x.try_into().unwrap(), &mut res);
            c * res
        };
        let mut expected = f64::NAN;
        rustc::products(&r, &mut expected);
        assert_eq!(res, expected);
        let e = [
            c,
            c * (r[2] + r[7] + r[9]),
            c * (r[1] + r[6] + r[8]),
            0.0,
            c * (r[5] + r[8]),
            c * (r[4] + r[6] + r[7]),
            c * (r[2] + r[5]),
            c * (r[1] + r[5]),
            c * (r[2] + r[4]),
            c * r[1],
        ];
        assert_vec_near(&g, &e, 1e-12, "products_vjp");
        assert_vec_near(&g, &fd_gradient(&primal, &r), 1e-6, "products_vjp vs fd");
    }
}

/// The matrix of autodiffv2.rs, rows the outputs.
const LINEAR: [[f32; 4]; 5] = [
    [4.3, 1.2, 3.4, 2.1],
    [2.3, 4.5, 1.7, 6.4],
    [1.1, 3.3, 2.5, 4.7],
    [5.2, 1.4, 2.6, 3.8],
    [1.0, 2.0, 3.0, 4.0],
];

#[test]
fn rustc_linear_map_forward() {
    // autodiffv2.rs: four forward passes along the unit vectors at x = (0, 1, 2, 3) give the columns.
    let x = [0.0f32, 1.0, 2.0, 3.0];
    for j in 0..4 {
        let mut t = vec![0.0f32; 4];
        t[j] = 1.0;
        let mut y = vec![f32::NAN; 5];
        let mut dy = vec![f32::NAN; 5];
        rustc::linear_jvp(&x, &mut y, t, &mut dy);
        let mut y0 = vec![0.0f32; 5];
        rustc::linear(&x, &mut y0);
        assert_eq!(y, y0);
        for i in 0..5 {
            assert_eq!(dy[i], LINEAR[i][j], "column {j}, row {i}");
        }
    }
    // The reverse sweep along a cotangent: its transpose.
    let c = [0.5f32, -1.0, 2.0, 0.25, -0.75];
    let mut y = vec![0.0f32; 5];
    let g = rustc::linear_vjp(&x, &mut y, &c);
    for j in 0..4 {
        let e: f32 = (0..5).map(|i| c[i] * LINEAR[i][j]).sum();
        assert_near(g[j] as f64, e as f64, 1e-6, 1.0, "linear_vjp");
    }
    let jac = rustc::linear_jacobian(&x, &mut y);
    for i in 0..5 {
        for j in 0..4 {
            assert_eq!(jac[i][j], LINEAR[i][j]);
        }
    }
}

#[test]
fn rustc_windows() {
    // iter/window.rs: at x = (3, 5, 7), args = (2, 1, 100), y = (166, 34020), and the rows of the
    // Jacobian (12, 20, 28) and (4804, 35208, -3600).
    let (x, args) = ([3.0, 5.0, 7.0], [2.0, 1.0, 100.0]);
    let mut y = [f64::NAN; 2];
    let g0 = rustc::window_vjp(&x, &args, &mut y, &[1.0, 0.0]);
    assert_eq!(y, [166.0, 34020.0]);
    assert_eq!(g0, [12.0, 20.0, 28.0]);
    let g1 = rustc::window_vjp(&x, &args, &mut y, &[0.0, 1.0]);
    assert_eq!(g1, [4804.0, 35208.0, -3600.0]);
    let mut rng = Lcg::new(seed_of("rustc_windows"));
    for _ in 0..POINTS {
        let x: [f64; 3] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let args: [f64; 3] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let c = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let primal = |x: &[f64]| {
            let mut y = [0.0; 2];
            rustc::window(x.try_into().unwrap(), &args, &mut y);
            dot(&c, &y)
        };
        let g = rustc::window_vjp(&x, &args, &mut y, &c);
        assert_vec_near(&g, &fd_gradient(&primal, &x), 1e-6, "window_vjp vs fd");
        let t: [f64; 3] = std::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let mut dy = [f64::NAN; 2];
        rustc::window_jvp(&x, &args, &mut y, t, &mut dy);
        // c . (J t) = (c J) . t
        assert_near(dot(&c, &dy), dot(&g, &t), 1e-10, 1.0, "window_jvp");
    }
}

// ---------------------------------------------------------------------------------------------------
// ADBench as rustc's tests/ui/autodiff/adbench writes it
// ---------------------------------------------------------------------------------------------------

/// Checks `vjp(x, c)` (the cotangent `c` of a vector output pulled back to the flat inputs) against
/// central differences of `c . f(x)`, at `points` inputs from `sample` and random cotangents.
#[track_caller]
fn check_pullback(
    name: &str,
    outputs: usize,
    sample: impl Fn(&mut Lcg) -> Vec<f64>,
    f: &dyn Fn(&[f64]) -> Vec<f64>,
    vjp: &dyn Fn(&[f64], &[f64]) -> Vec<f64>,
) {
    let mut rng = Lcg::new(seed_of(name));
    for _ in 0..4 {
        let x = sample(&mut rng);
        let c = rng.vec(outputs, -1.0, 1.0);
        let g = vjp(&x, &c);
        let fd_g = fd_gradient(&|y| dot(&c, &f(y)), &x);
        assert_vec_near(&g, &fd_g, 1e-6, &format!("{name} at {x:?}"));
    }
}

#[test]
fn adbench_ba() {
    // A camera near the identity rotation looking at points in front of it, and the rotation exactly
    // zero (the other branch of rodrigues_rotate_point).
    let sample = |r: &mut Lcg| {
        let mut v = r.vec(15, -0.3, 0.3);
        v[5] -= 5.0; // the camera centre behind the points
        v[6] += 1.0; // focal length
        v
    };
    let split = |v: &[f64]| -> ([f64; 11], [f64; 3], [f64; 1]) {
        (
            v[..11].try_into().unwrap(),
            v[11..14].try_into().unwrap(),
            [v[14]],
        )
    };
    let feat = [0.1, -0.2];
    let f = |v: &[f64]| {
        let (cam, x, w) = split(v);
        let mut err = [0.0; 2];
        adbench::compute_reproj_error(&cam, &x, &w, &feat, &mut err);
        err.to_vec()
    };
    let vjp = |v: &[f64], c: &[f64]| {
        let (cam, x, w) = split(v);
        let mut err = [f64::NAN; 2];
        let (gc, gx, gw) =
            adbench::compute_reproj_error_vjp(&cam, &x, &w, &feat, &mut err, &[c[0], c[1]]);
        assert_eq!(err.to_vec(), f(v));
        [gc.to_vec(), gx.to_vec(), gw.to_vec()].concat()
    };
    check_pullback("ba", 2, sample, &f, &vjp);
    let zero_rotation = |r: &mut Lcg| {
        let mut v = sample(r);
        v[..3].fill(0.0);
        v
    };
    // (At a zero rotation the gradient in it is the first-order branch's, which central differences
    // straddling zero also see: the Rodrigues formula is smooth there.)
    check_pullback("ba at zero rotation", 2, zero_rotation, &f, &vjp);
    // The Jacobian, 2 x 15, against central differences.
    let v = sample(&mut Lcg::new(7));
    let (cam, x, w) = split(&v);
    let jac = adbench::compute_reproj_error_jacobian(&cam, &x, &w, &feat, &mut [0.0; 2]);
    let columns = fd_columns(&f, &v);
    for i in 0..2 {
        for j in 0..15 {
            assert_near(
                jac[i][j],
                columns[j][i],
                1e-6,
                1.0,
                &format!("ba J[{i}][{j}]"),
            );
        }
    }
}

#[test]
fn adbench_gmm() {
    let (d, k, n) = (3, 2, 4);
    let icf_sz = d * (d + 1) / 2;
    let mut rng = Lcg::new(seed_of("gmm data"));
    let x = rng.vec(n * d, -1.0, 1.0);
    let (gamma, m) = (1.5, 2);
    let split = |v: &[f64]| {
        (
            v[..k].to_vec(),
            v[k..k + k * d].to_vec(),
            v[k + k * d..].to_vec(),
        )
    };
    let f = |v: &[f64]| {
        let (a, mu, icf) = split(v);
        adbench::gmm_objective(d, k, n, &a, &mu, &icf, &x, gamma, m)
    };
    Probe::new("gmm", f)
        .grad(|v| {
            let (a, mu, icf) = split(v);
            let (value, (ga, gm, gi)) =
                adbench::gmm_objective_grad(d, k, n, &a, &mu, &icf, &x, gamma, m);
            (value, [ga, gm, gi].concat())
        })
        .jvp(|v, t| {
            let (a, mu, icf) = split(v);
            let (ta, tm, ti) = split(t);
            adbench::gmm_objective_jvp(d, k, n, &a, &mu, &icf, &x, gamma, m, (ta, tm, ti))
        })
        .hessian(|v| {
            let (a, mu, icf) = split(v);
            let (value, (ga, gm, gi), h) =
                adbench::gmm_objective_hessian(d, k, n, &a, &mu, &icf, &x, gamma, m);
            (value, [ga, gm, gi].concat(), h)
        })
        .run(6, |r| r.vec(k + k * d + k * icf_sz, -1.0, 1.0));
}

#[test]
fn adbench_lstm() {
    let (l, c, b) = (2, 4, 3);
    let mut rng = Lcg::new(seed_of("lstm data"));
    let state = rng.vec(2 * l * b, -1.0, 1.0);
    let sequence = rng.vec(c * b, -1.0, 1.0);
    let main = 2 * l * 4 * b;
    let f = |v: &[f64]| adbench::lstm_objective(l, c, b, &v[..main], &v[main..], &state, &sequence);
    Probe::new("lstm", f)
        .grad(|v| {
            let (value, (gm, ge)) =
                adbench::lstm_objective_grad(l, c, b, &v[..main], &v[main..], &state, &sequence);
            (value, [gm, ge].concat())
        })
        .jvp(|v, t| {
            let tangent = (t[..main].to_vec(), t[main..].to_vec());
            adbench::lstm_objective_jvp(l, c, b, &v[..main], &v[main..], &state, &sequence, tangent)
        })
        .hessian(|v| {
            let (value, (gm, ge), h) =
                adbench::lstm_objective_hessian(l, c, b, &v[..main], &v[main..], &state, &sequence);
            (value, [gm, ge].concat(), h)
        })
        .run(2, |r| r.vec(main + 3 * b, -1.0, 1.0));
}

#[test]
fn adbench_brusselator() {
    const NN: usize = adbench::N * adbench::N;
    let split = |v: &[f64]| -> ([f64; NN], [f64; NN], [f64; 3]) {
        (
            v[..NN].try_into().unwrap(),
            v[NN..2 * NN].try_into().unwrap(),
            v[2 * NN..].try_into().unwrap(),
        )
    };
    for t in [0.5, 2.0] {
        let f = |v: &[f64]| {
            let (u, w, p) = split(v);
            let (mut du, mut dv) = ([0.0; NN], [0.0; NN]);
            adbench::brusselator_2d_loop(&mut du, &mut dv, &u, &w, &p, t);
            [du.to_vec(), dv.to_vec()].concat()
        };
        let vjp = |v: &[f64], c: &[f64]| {
            let (u, w, p) = split(v);
            let (mut du, mut dv) = ([f64::NAN; NN], [f64::NAN; NN]);
            let (gu, gv, gp) = adbench::brusselator_2d_loop_vjp(
                &mut du,
                &mut dv,
                &u,
                &w,
                &p,
                t,
                c[..NN].try_into().unwrap(),
                c[NN..].try_into().unwrap(),
            );
            assert_eq!([du.to_vec(), dv.to_vec()].concat(), f(v));
            [gu.to_vec(), gv.to_vec(), gp.to_vec()].concat()
        };
        let sample = |r: &mut Lcg| {
            let mut v = r.vec(2 * NN + 3, 0.0, 1.0);
            v[2 * NN + 2] *= 0.1;
            v
        };
        check_pullback("brusselator", 2 * NN, sample, &f, &vjp);
        // Forward mode against the reverse sweep: c . (J t) = (c J) . t.
        let mut rng = Lcg::new(seed_of("brusselator jvp"));
        let v = sample(&mut rng);
        let (c, tv) = (rng.vec(2 * NN, -1.0, 1.0), rng.vec(2 * NN + 3, -1.0, 1.0));
        let (u, w, p) = split(&v);
        let (tu, tw, tp) = split(&tv);
        let (mut du, mut dv) = ([0.0; NN], [0.0; NN]);
        let (mut ddu, mut ddv) = ([f64::NAN; NN], [f64::NAN; NN]);
        adbench::brusselator_2d_loop_jvp(
            &mut du,
            &mut dv,
            &u,
            &w,
            &p,
            t,
            (tu, tw, tp),
            &mut ddu,
            &mut ddv,
        );
        let jt = [ddu.to_vec(), ddv.to_vec()].concat();
        let cj = vjp(&v, &c);
        assert_near(
            dot(&c, &jt),
            dot(&cj, &tv),
            1e-10,
            1.0,
            "brusselator jvp vs vjp",
        );
    }
}

#[test]
fn adbench_fft_round_trip() {
    // fft then ifft is the identity: its pullback is the cotangent and its pushforward the tangent.
    let mut rng = Lcg::new(seed_of("fft"));
    for n in [1, 2, 4, 8, 16] {
        let x = rng.vec(2 * n, -1.0, 1.0);
        let mut y = x.clone();
        adbench::foobar(&mut y);
        assert_vec_near(&y, &x, 1e-12, "fft round trip");
        let c = rng.vec(2 * n, -1.0, 1.0);
        let mut y = x.clone();
        let g = adbench::foobar_vjp(&mut y, &c);
        assert_vec_near(&y, &x, 1e-12, "foobar_vjp's output");
        assert_vec_near(&g, &c, 1e-12, &format!("foobar_vjp at n = {n}"));
        let t = rng.vec(2 * n, -1.0, 1.0);
        let mut y = x.clone();
        let mut d = vec![f64::NAN; 2 * n];
        adbench::foobar_jvp(&mut y, t.clone(), &mut d);
        assert_vec_near(&d, &t, 1e-12, &format!("foobar_jvp at n = {n}"));
    }
}

// ---------------------------------------------------------------------------------------------------
// Enzyme
// ---------------------------------------------------------------------------------------------------

/// Central differences of fourth order, `(8 (f(x + h) - f(x - h)) - (f(x + 2h) - f(x - 2h))) / 12h`.
fn fd4_gradient(f: &dyn Fn(&[f64]) -> f64, x: &[f64], step: f64) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = step * x[i].abs().max(1.0);
            let at = |k: f64| {
                let mut y = x.to_vec();
                y[i] += k * h;
                f(&y)
            };
            (8.0 * (at(1.0) - at(-1.0)) - (at(2.0) - at(-2.0))) / (12.0 * h)
        })
        .collect()
}

#[test]
fn enzyme_controlflow() {
    // The original's point (0.9, 0.7) and points near it; the pullback of a cotangent against central
    // differences of c . x(out), and the pushforward against the pullback.
    let run = |x: &[f64]| {
        let mut y = [x[0], x[1]];
        enzyme::controlflow(&mut y);
        y.to_vec()
    };
    let mut rng = Lcg::new(seed_of("controlflow"));
    let mut checked = 0;
    for trial in 0..4 * POINTS {
        let x = if trial == 0 {
            vec![0.9, 0.7]
        } else {
            vec![rng.uniform(0.6, 1.2), rng.uniform(0.4, 1.0)]
        };
        let c = [1.0, 2.0]; // the original's seed x_b
                            // The map is steep (derivatives of 1e3 after a few steps): central differences of fourth order,
                            // whose error is h^4, not h^2, of its fifth derivative.
        let fd_g = fd4_gradient(&|y| dot(&c, &run(y)), &x, 1e-4);
        // Central differences straddling a change of path (or the step cap) are no oracle: keep points
        // where a ten times smaller step agrees.
        let fine = fd4_gradient(&|y| dot(&c, &run(y)), &x, 1e-5);
        if (0..2).any(|i| (fd_g[i] - fine[i]).abs() > 1e-6 * fd_g[i].abs().max(1.0)) {
            continue;
        }
        checked += 1;
        let mut y = [x[0], x[1]];
        let g = enzyme::controlflow_vjp(&mut y, &c);
        assert_eq!(y.to_vec(), run(&x));
        assert_vec_near(&g, &fd_g, 1e-6, &format!("controlflow at {x:?}"));
        let mut y = [x[0], x[1]];
        let mut d = [f64::NAN; 2];
        enzyme::controlflow_jvp(&mut y, [0.3, -0.8], &mut d);
        let scale = g[0].abs() + g[1].abs();
        assert_near(
            dot(&c, &d),
            0.3 * g[0] - 0.8 * g[1],
            1e-10,
            scale,
            "controlflow_jvp",
        );
    }
    assert!(
        checked >= POINTS,
        "only {checked} points away from a change of path"
    );
}

#[test]
fn enzyme_unused_unit_vector() {
    // nested-predicate.cpp: the gradient of fvec[0] is (1, 0, 0), of the sum (1, 1, 1), whatever the
    // flag, also where the unused radius is NaN (a negative sum under the root).
    for fvec in [[1.0, 2.0, 3.0], [-1.0, -2.0, 3.0], [0.0, 0.0, 0.0]] {
        for fan in [false, true] {
            let (v, g) = enzyme::first_grad(&fvec, fan);
            assert_eq!(
                (v, g),
                (fvec[0], vec![1.0, 0.0, 0.0]),
                "first at {fvec:?}, {fan}"
            );
            let (_, _, h) = enzyme::first_hessian(&fvec, fan);
            assert_eq!(
                h,
                vec![vec![0.0; 3]; 3],
                "first's Hessian at {fvec:?}, {fan}"
            );
            let (_, d) = enzyme::first_jvp(&fvec, fan, vec![0.5, 1.0, 2.0]);
            assert_eq!(d, 0.5);
            let mut out = f64::NAN;
            let g = enzyme::second_vjp(&fvec, fan, &mut out, 1.0);
            assert_eq!(out, fvec.iter().sum::<f64>());
            assert_eq!(g, vec![1.0; 3], "second at {fvec:?}, {fan}");
        }
    }
}

#[test]
fn enzyme_headerremat() {
    // The original: dr = 200, the cotangent of every out[k] 1: the gradient of out[k] is nr * ntheta at
    // step k, Enzyme's answer list.
    let answer = [
        200.0, 15500.0, 24336.0, 37830.0, 59536.0, 92720.0, 144780.0, 226814.0, 355216.0, 554280.0,
    ];
    let mut out = [1.0; 10];
    let (value, (g_dr, g_out)) = enzyme::integrate_image_vjp(200.0, &mut out, 0.0, &[1.0; 10]);
    assert_eq!(g_out, answer.to_vec());
    let mut expected_out = [1.0; 10];
    let expected = enzyme::integrate_image(200.0, &mut expected_out);
    assert_eq!((value, out), (expected, expected_out));
    assert_eq!(g_dr, 0.0);
    // The returned value: sum * dr at the last step, sum an integer: d/d dr = sum / 0.8^9.
    let mut rng = Lcg::new(seed_of("headerremat"));
    for _ in 0..POINTS {
        let dr = rng.uniform(50.0, 300.0);
        let mut out = [1.0; 10];
        let (value, (g_dr, _)) = enzyme::integrate_image_vjp(dr, &mut out, 1.0, &[0.0; 10]);
        let last = dr / 0.8f64.powi(9);
        let sum = value / last;
        assert_near(sum, sum.round(), 1e-9, 1.0, "an integer sum");
        assert_near(g_dr, sum / 0.8f64.powi(9), 1e-12, 1.0, "d value / d dr");
        // Central differences, where the truncations do not change within the step.
        let f = |x: &[f64]| enzyme::integrate_image(x[0], &mut [1.0; 10]);
        let fd_g = fd_gradient(&f, &[dr]);
        if (fd_g[0] - g_dr).abs() < 1e-3 * g_dr.abs() {
            assert_near(g_dr, fd_g[0], 1e-6, 1.0, "d value / d dr vs fd");
        }
    }
}

#[test]
fn enzyme_activity() {
    // ForwardMode/activity.c at 0, 0.5, 1, 2, 3: cos^2 - sin^2.
    for x in [0.0, 0.5, 1.0, 2.0, 3.0] {
        let (v, d) = enzyme::activity_jvp(x, 1.0);
        assert_eq!(v, x.sin() * x.cos());
        assert_near(
            d,
            x.cos() * x.cos() - x.sin() * x.sin(),
            1e-15,
            1.0,
            "activity'",
        );
        let ds = enzyme::activity_derivatives(x);
        assert_near(ds[2], -4.0 * x.sin() * x.cos(), 1e-14, 1.0, "activity''");
    }
}

/// The optimal fifth-order stencil, to which every scheme reduces when its candidates agree.
const OPTIMAL: [f64; 5] = [
    1.0 / 30.0,
    -13.0 / 60.0,
    47.0 / 60.0,
    9.0 / 20.0,
    -1.0 / 20.0,
];

/// The gradient of a reconstruction by forward mode, one unit tangent per column, as the original does.
fn forward_gradient(jvp: impl Fn([f64; 5]) -> (f64, f64)) -> [f64; 5] {
    std::array::from_fn(|col| {
        let mut t = [0.0; 5];
        t[col] = 1.0;
        jvp(t).1
    })
}

/// TENO5's gradient with its cutoff flags frozen: the normalised candidate stencil.
fn teno5_frozen_gradient(v: &[f64; 5]) -> [f64; 5] {
    let mut delta = [0.0; 3];
    enzyme::teno5_cutoff(v, &mut delta);
    let w: Vec<f64> = (0..3).map(|k| delta[k] * enzyme::D_OPT[k]).collect();
    let sum: f64 = w.iter().sum();
    let mut g = [0.0; 5];
    if sum < 1e-40 {
        g[1..4].copy_from_slice(&enzyme::SUB_COEFF[3..6]);
        return g;
    }
    for k in 0..3 {
        for c in 0..3 {
            g[k + c] += w[k] / sum * enzyme::SUB_COEFF[3 * k + c];
        }
    }
    g
}

fn step_profile(s: f64) -> [f64; 5] {
    std::array::from_fn(|j| (0.7 * j as f64).sin() + if j >= 3 { s } else { 0.0 })
}

#[test]
fn enzyme_substencil_weights() {
    // A linear profile: all three schemes give the optimal stencil, by both modes.
    let linear: [f64; 5] = std::array::from_fn(|j| 3.0 + 2.0 * j as f64);
    let js = forward_gradient(|t| enzyme::weno5js_jvp(&linear, t));
    let z = forward_gradient(|t| enzyme::weno5z_jvp(&linear, t));
    let teno = forward_gradient(|t| enzyme::teno5_jvp(&linear, t));
    for (name, g) in [("weno5js", js), ("weno5z", z), ("teno5", teno)] {
        assert_vec_near(&g, &OPTIMAL, 1e-14, &format!("{name} on a linear profile"));
    }
    assert_vec_near(
        &enzyme::teno5_grad(&linear).1,
        &OPTIMAL,
        1e-14,
        "teno5_grad",
    );
    // WENO5-JS is smooth: forward mode, reverse mode and central differences agree, and its Hessian
    // is the Jacobian of its gradient.
    let smooth: [f64; 5] = std::array::from_fn(|j| (0.7 * j as f64).sin());
    let mut rng = Lcg::new(seed_of("weno5js"));
    for trial in 0..POINTS {
        let v: [f64; 5] = if trial == 0 {
            smooth
        } else {
            std::array::from_fn(|_| rng.uniform(-1.0, 1.0))
        };
        let g = forward_gradient(|t| enzyme::weno5js_jvp(&v, t));
        let (_, rg) = enzyme::weno5js_grad(&v);
        assert_vec_near(&g, &rg, 1e-12, "weno5js: forward vs reverse");
        let fd_g = fd_gradient(&|x| enzyme::weno5js(x.try_into().unwrap()), &v);
        assert_vec_near(&g, &fd_g, 1e-6, "weno5js vs fd");
        let (_, _, h) = enzyme::weno5js_hessian(&v);
        let columns = fd_columns(
            &|x| enzyme::weno5js_grad(x.try_into().unwrap()).1.to_vec(),
            &v,
        );
        let scale = columns.iter().map(|c| norm(c)).fold(1.0, f64::max);
        for i in 0..5 {
            for j in 0..5 {
                assert_near(
                    h[i][j],
                    columns[j][i],
                    1e-5,
                    scale,
                    &format!("weno5js H[{i}][{j}]"),
                );
            }
        }
    }
    // WENO5-Z on a symmetric stencil sits on the kink of |beta0 - beta2| (exactly +0.0 there): abs'
    // at +0 is 1 (DESIGN.md), so the gradient is the (+) branch's exactly, and central differences
    // give the mean of the two branches.
    let symmetric = [1.0, 0.0, 1.0, 0.0, 1.0];
    let mut beta = [0.0; 3];
    enzyme::smoothness(&symmetric, &mut beta);
    assert_eq!(beta[0] - beta[2], 0.0);
    let plus = forward_gradient(|t| enzyme::weno5z_branch_jvp(&symmetric, 1.0, t));
    let minus = forward_gradient(|t| enzyme::weno5z_branch_jvp(&symmetric, -1.0, t));
    let jump = (0..5)
        .map(|j| (plus[j] - minus[j]).abs())
        .fold(0.0, f64::max);
    assert!(jump > 1e-3, "the kink is real: {jump}");
    let g = forward_gradient(|t| enzyme::weno5z_jvp(&symmetric, t));
    assert_vec_near(&g, &plus, 1e-14, "weno5z at the kink: the (+) branch");
    assert_vec_near(
        &enzyme::weno5z_grad(&symmetric).1,
        &plus,
        1e-14,
        "weno5z_grad at the kink",
    );
    let mean: Vec<f64> = (0..5).map(|j| 0.5 * (plus[j] + minus[j])).collect();
    let fd_g = fd_gradient(&|x| enzyme::weno5z(x.try_into().unwrap()), &symmetric);
    assert_vec_near(
        &fd_g,
        &mean,
        1e-5,
        "weno5z: central differences give the mean",
    );
    // Each branch against central differences of itself.
    for sign in [1.0, -1.0] {
        let fd_b = fd_gradient(
            &|x| enzyme::weno5z_branch(x.try_into().unwrap(), sign),
            &symmetric,
        );
        let b = if sign > 0.0 { plus } else { minus };
        assert_vec_near(&b, &fd_b, 1e-6, "weno5z branch vs fd");
    }
    // WENO5-Z's Hessian away from the kink against central differences of its gradient.
    let mut rng = Lcg::new(seed_of("weno5z"));
    for _ in 0..POINTS {
        let v: [f64; 5] = std::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let (_, g, h) = enzyme::weno5z_hessian(&v);
        assert_eq!(g, enzyme::weno5z_grad(&v).1);
        let grad = |x: &[f64]| enzyme::weno5z_grad(x.try_into().unwrap()).1.to_vec();
        let columns = fd_columns(&grad, &v);
        let scale = columns.iter().map(|c| norm(c)).fold(1.0, f64::max);
        for i in 0..5 {
            for j in 0..5 {
                assert_near(
                    h[i][j],
                    columns[j][i],
                    1e-5,
                    scale,
                    &format!("weno5z H[{i}][{j}]"),
                );
            }
        }
    }
    // TENO5: piecewise constant weights, so inside a branch the gradient is the frozen-weight
    // stencil, for steps that flip the cutoff; its Hessian is zero where it is linear.
    for s in [0.0, 0.2, 0.35, 0.8, 1.5, 3.0] {
        let v = step_profile(s);
        let g = forward_gradient(|t| enzyme::teno5_jvp(&v, t));
        let frozen = teno5_frozen_gradient(&v);
        assert_vec_near(&g, &frozen, 1e-14, &format!("teno5 at s = {s}"));
        assert_vec_near(&enzyme::teno5_grad(&v).1, &frozen, 1e-14, "teno5_grad");
        let (_, _, h) = enzyme::teno5_hessian(&v);
        let zero = vec![vec![0.0; 5]; 5];
        assert!(
            h.iter().flatten().all(|e| e.abs() < 1e-12),
            "teno5'' at s = {s}: {h:?} != {zero:?}"
        );
    }
}

#[test]
fn enzyme_overwritten_reads() {
    // overwrite_outer_loop.c: A[k] = k + 1, offs[i] = 5 i, N = 3, M = 4: the gradient of the incoming A
    // is 2 (k + 1) over the read ranges [5, 9), [10, 14), [15, 19), and 0 elsewhere.
    let a: Vec<f64> = (0..20).map(|k| k as f64 + 1.0).collect();
    let offs = [0, 5, 10];
    let mut out = a.clone();
    let (value, g) = enzyme::overwrite_outer_vjp(&mut out, &offs, 3, 4, 1.0, &[0.0; 20]);
    let mut expected_out = a.clone();
    assert_eq!(
        value,
        enzyme::overwrite_outer(&mut expected_out, &offs, 3, 4)
    );
    assert_eq!(out, expected_out);
    let e: Vec<f64> = (0..20)
        .map(|k| {
            let read = (5..9).contains(&k) || (10..14).contains(&k) || (15..19).contains(&k);
            if read {
                2.0 * (k as f64 + 1.0)
            } else {
                0.0
            }
        })
        .collect();
    assert_eq!(g, e);
    // At random points and cotangents, against central differences of d_ret f + d_out . A(out).
    check_read(
        "overwrite_outer",
        0,
        20,
        &|_, a| enzyme::overwrite_outer(a, &offs, 3, 4),
        &|_, a, d_ret, d_out| {
            let (v, g) = enzyme::overwrite_outer_vjp(a, &offs, 3, 4, d_ret, d_out);
            (v, (vec![], g))
        },
    );
    // The early return.
    let mut out = a.clone();
    assert_eq!(
        enzyme::overwrite_outer_vjp(&mut out, &offs, 0, 4, 1.0, &[1.0; 20]),
        (0.0, vec![1.0; 20])
    );

    // boundissue.c: a[i] *= a[i] for i in 0..=n; n = -1 and -10 leave everything alone.
    for n in [-10, -1] {
        let mut a = vec![3.0; 2];
        let g = enzyme::alldiv_vjp(&mut a, n, &[1.0, 2.0]);
        assert_eq!((a, g), (vec![3.0; 2], vec![1.0, 2.0]));
    }
    let mut a1 = vec![3.14];
    let g = enzyme::alldiv_vjp(&mut a1, 0, &[1.0]);
    assert_near(a1[0], 3.14 * 3.14, 1e-15, 1.0, "a1");
    assert_near(g[0], 6.28, 1e-15, 1.0, "d a1");
    let mut a10: Vec<f64> = (0..10).map(|i| 1.0 + i as f64).collect();
    let g = enzyme::alldiv_vjp(&mut a10, 9, &[1.0; 10]);
    for i in 0..10 {
        assert_eq!(a10[i], (1.0 + i as f64).powi(2));
        assert_eq!(g[i], 2.0 * (1.0 + i as f64));
    }
}

#[test]
fn enzyme_fixed_point() {
    // fixed_point_counted.c at x = 0.3 + 0.1 k, and at random points: the gradient through every
    // iteration against central differences, and the Hessian against differences of the gradient.
    let arr = |x: &[f64]| -> [f64; 4] { x.try_into().unwrap() };
    let mut rng = Lcg::new(seed_of("fixed point"));
    for trial in 0..POINTS {
        let x: Vec<f64> = if trial == 0 {
            (0..4).map(|k| 0.3 + 0.1 * k as f64).collect()
        } else {
            rng.vec(4, -1.0, 1.0)
        };
        let (v, g) = enzyme::fixed_point_grad(&arr(&x));
        assert_eq!(v, enzyme::fixed_point(&arr(&x)));
        let fd_g = fd_gradient(&|y| enzyme::fixed_point(&arr(y)), &x);
        assert_vec_near(&g, &fd_g, 1e-6, &format!("fixed_point at {x:?}"));
        let (_, _, h) = enzyme::fixed_point_hessian(&arr(&x));
        let columns = fd_columns(&|y| enzyme::fixed_point_grad(&arr(y)).1.to_vec(), &x);
        for i in 0..4 {
            for j in 0..4 {
                assert_near(
                    h[i][j],
                    columns[j][i],
                    1e-6,
                    1.0,
                    &format!("fixed_point H[{i}][{j}]"),
                );
            }
        }
    }
}
