//! `f_grad_into` for every kind of parameter of API.md's table and for methods: parameter structs (active,
//! constant by `wrt(..)`, data without the derive, nested, taken by value), methods (`wrt(self)`,
//! `wrt(self, x)`, a constant `self`, a generic `impl`), active matrices (`&[Vec<f64>]`, `Vec<Vec<f64>>`,
//! `[[f64; 3]; 3]`), `Vec<f64>` by value and tuples. For each, on seeded points: the gradient written
//! into buffers pre-filled with garbage equals `f_grad`'s bit for bit, matches central differences of
//! the function as written, and `f_grad_into` allocates no more than the function itself does on the
//! same inputs (API.md: "it allocates nothing that the function itself does not allocate"), except
//! where said: active matrices and a struct passed on whole still copy `f_grad`'s gradient
//! (`assert_still_copied`, pinned). `cargo test --test grad_into40 -- --nocapture` prints the counts.

// Indexed loops are the form users write.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::{assert_fd_gradient, Inputs};

#[path = "common/counting.rs"]
mod counting;
use counting::allocations_during;

/// The reference adjoint (feature `reference-adjoint`) stores every value its loops read on tapes, which
/// allocate: the allocation counts are those of the optimised adjoint.
const OPTIMISED: bool = !cfg!(feature = "reference-adjoint");

/// Asserts that `f_grad_into` allocated (`into`) no more than the function itself (`primal`) on the
/// same inputs.
#[track_caller]
fn assert_allocates_no_more(case: &str, primal: usize, into: usize) {
    assert_allocates_at_most(case, primal, 0, into);
}

/// Asserts that `f_grad_into` allocated (`into`) no more than the function itself (`primal`) and the
/// `extra` allocations its caller explains.
#[track_caller]
fn assert_allocates_at_most(case: &str, primal: usize, extra: usize, into: usize) {
    eprintln!(
        "{case}: the function allocates {primal} times, f_grad_into {into} ({extra} allowed more)"
    );
    assert!(
        into <= primal + extra || !OPTIMISED,
        "{case}: f_grad_into allocated {into} times, the function itself {primal} (+{extra} allowed)"
    );
}

/// Asserts that two gradients are equal bit for bit.
#[track_caller]
fn assert_same_bits(actual: &[f64], expected: &[f64], what: &str) {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    assert_eq!(
        bits(actual),
        bits(expected),
        "{what}: {actual:?} against f_grad's {expected:?}"
    );
}

/// The seeded points of each case.
const POINTS: u64 = 6;

// ---------------------------------------------------------------------------------------------------
// Parameter structs.

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Cfg {
    b: f64,
    w: Vec<f64>,
    #[no_grad]
    n: usize,
}

/// A `Differentiable` struct left out by `wrt(..)`: a constant.
#[differentiable(wrt(x))]
fn reads(p: &Cfg, x: &[f64]) -> f64 {
    let mut s = p.b * x[0];
    for i in 0..p.n {
        s += p.w[i] * x[i] * x[i];
    }
    s
}

#[test]
fn a_struct_left_out_by_wrt() {
    let mut inputs = Inputs(4001);
    for _ in 0..POINTS {
        let p = Cfg {
            b: inputs.next(),
            w: inputs.vec(3),
            n: 3,
        };
        let x = inputs.vec(3);
        let mut grad = vec![f64::NAN; 3];
        let primal = allocations_during(|| {
            reads(&p, &x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = reads_grad_into(&p, &x, &mut grad));
        let (expected_value, expected) = reads_grad(&p, &x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&grad, &expected, "reads");
        assert_fd_gradient(|x| reads(&p, x), &x, &grad, "reads");
        assert_allocates_no_more("reads", primal, into);
    }
}

/// Settings the file declares without the derive: data, kept constant.
struct Settings {
    scale: f64,
    offsets: Vec<f64>,
}

#[differentiable]
fn with_settings(x: &[f64], s: &Settings) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let d = x[i] - s.offsets[i];
        total += s.scale * d * d * x[i].sin();
    }
    total
}

#[test]
fn a_data_struct_without_the_derive() {
    let mut inputs = Inputs(4002);
    for _ in 0..POINTS {
        let s = Settings {
            scale: 1.0 + inputs.next(),
            offsets: inputs.vec(4),
        };
        let x = inputs.vec(4);
        let mut grad = vec![1e300; 4];
        let primal = allocations_during(|| {
            with_settings(&x, &s);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = with_settings_grad_into(&x, &s, &mut grad));
        let (expected_value, expected) = with_settings_grad(&x, &s);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&grad, &expected, "with_settings");
        assert_fd_gradient(|x| with_settings(x, &s), &x, &grad, "with_settings");
        assert_allocates_no_more("with_settings", primal, into);
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Model {
    w: Vec<f64>,
    b: f64,
    a: [f64; 2],
    #[no_grad]
    n: usize,
}

impl Model {
    fn random(inputs: &mut Inputs, n: usize) -> Model {
        Model {
            w: inputs.vec(n),
            b: inputs.next(),
            a: [inputs.next(), inputs.next()],
            n,
        }
    }

    /// A buffer of the model's shape, every component garbage.
    fn garbage(&self) -> Model {
        Model {
            w: vec![f64::NAN; self.w.len()],
            b: 1e300,
            a: [f64::NAN, -1e300],
            n: 12345,
        }
    }
}

/// An active parameter struct with `Vec`, scalar and array fields and a `#[no_grad]` field, beside a float.
#[differentiable]
fn model_loss(m: &Model, x: f64) -> f64 {
    let mut s = m.b * x + m.a[0] * m.a[1];
    for i in 0..m.n {
        s += (m.w[i] * x).tanh() * m.a[i % 2];
    }
    s * s
}

/// A function of a `Model` and a float, with its generated items; `counted` runs the function or
/// `f_grad_into` and counts its allocations alone (a struct taken by value is cloned outside the count).
struct ModelCase<F, P, G, I> {
    name: &'static str,
    seed: u64,
    /// The allocations the reverse sweep itself makes where the function makes none (its own copies
    /// of a written field), which `f_grad_into` may add: 0 unless said why.
    sweep_allocates: usize,
    f: F,
    primal_counted: P,
    grad: G,
    into_counted: I,
}

impl<F, P, G, I> ModelCase<F, P, G, I>
where
    F: Fn(&Model, f64) -> f64,
    P: Fn(&Model, f64) -> usize,
    G: Fn(&Model, f64) -> (f64, (Model, f64)),
    I: Fn(&Model, f64, (&mut Model, &mut f64)) -> (f64, usize),
{
    /// Checks `f_grad_into` against `f_grad` and central differences, and counts its allocations.
    fn check(&self) {
        let name = self.name;
        let mut inputs = Inputs(self.seed);
        for _ in 0..POINTS {
            let m = Model::random(&mut inputs, 3);
            let x = inputs.next();
            let (mut dm, mut dx) = (m.garbage(), f64::NAN);
            let primal = (self.primal_counted)(&m, x);
            let (value, allocations) = (self.into_counted)(&m, x, (&mut dm, &mut dx));
            let (expected_value, (em, ex)) = (self.grad)(&m, x);
            assert_eq!(value.to_bits(), expected_value.to_bits(), "{name}");
            assert_same_bits(&dm.to_flat(), &em.to_flat(), name);
            assert_same_bits(&[dx], &[ex], name);
            assert_eq!(dm.n, m.n, "{name}: the #[no_grad] field is copied");
            let mut flat = m.to_flat();
            flat.push(x);
            let mut gradient = dm.to_flat();
            gradient.push(dx);
            let k = flat.len() - 1;
            let f = |v: &[f64]| (self.f)(&m.from_flat(&v[..k]), v[k]);
            assert_fd_gradient(f, &flat, &gradient, name);
            assert_allocates_at_most(name, primal, self.sweep_allocates, allocations);
        }
    }
}

#[test]
fn an_active_struct_with_vec_scalar_and_array_fields() {
    ModelCase {
        name: "model_loss",
        seed: 4003,
        sweep_allocates: 0,
        f: model_loss,
        primal_counted: |m: &Model, x| {
            allocations_during(|| {
                model_loss(m, x);
            })
        },
        grad: model_loss_grad,
        into_counted: |m: &Model, x, buffers: (&mut Model, &mut f64)| {
            let mut value = 0.0;
            let n = allocations_during(|| value = model_loss_grad_into(m, x, buffers));
            (value, n)
        },
    }
    .check();
}

/// The struct alone active (`wrt(m)`), one field (`b`) unread: its gradient is zero.
#[differentiable(wrt(m))]
fn model_only(m: &Model, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..m.w.len() {
        s += m.w[i] * m.w[i] * x + m.a[0];
    }
    s
}

#[test]
fn a_struct_alone_active_with_an_unread_field() {
    let mut inputs = Inputs(4004);
    for _ in 0..POINTS {
        let m = Model::random(&mut inputs, 4);
        let x = inputs.next();
        let mut dm = m.garbage();
        let primal = allocations_during(|| {
            model_only(&m, x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = model_only_grad_into(&m, x, &mut dm));
        let (expected_value, em) = model_only_grad(&m, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&dm.to_flat(), &em.to_flat(), "model_only");
        assert_eq!((dm.b, dm.a[1], dm.n), (0.0, 0.0, m.n));
        assert_fd_gradient(
            |v| model_only(&m.from_flat(v), x),
            &m.to_flat(),
            &dm.to_flat(),
            "model_only",
        );
        assert_allocates_no_more("model_only", primal, into);
    }
}

/// A struct taken by value.
#[differentiable]
fn model_by_value(m: Model, x: f64) -> f64 {
    m.b * x.sin() + m.w[0] * m.w[1] * m.a[1] + m.w[2].exp()
}

#[test]
fn a_struct_taken_by_value() {
    ModelCase {
        name: "model_by_value",
        seed: 4005,
        sweep_allocates: 0,
        f: |m: &Model, x| model_by_value(m.clone(), x),
        primal_counted: |m: &Model, x| {
            let m = m.clone();
            allocations_during(|| {
                model_by_value(m, x);
            })
        },
        grad: |m: &Model, x| model_by_value_grad(m.clone(), x),
        into_counted: |m: &Model, x, buffers: (&mut Model, &mut f64)| {
            let m = m.clone();
            let mut value = 0.0;
            let n = allocations_during(|| value = model_by_value_grad_into(m, x, buffers));
            (value, n)
        },
    }
    .check();
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Inner {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Outer {
    inner: Inner,
    c: f64,
    #[no_grad]
    label: u32,
}

/// Nested structs: fields of a field read (`o.inner.w[i]`).
#[differentiable]
fn nested(o: &Outer, x: f64) -> f64 {
    let mut s = o.c * x;
    for i in 0..o.inner.w.len() {
        s += (o.inner.w[i] + o.inner.b * x).sin();
    }
    s * o.c
}

#[test]
fn nested_structs() {
    let mut inputs = Inputs(4006);
    for _ in 0..POINTS {
        let o = Outer {
            inner: Inner {
                w: inputs.vec(3),
                b: inputs.next(),
            },
            c: inputs.next(),
            label: 7,
        };
        let x = inputs.next();
        let mut d_o = Outer {
            inner: Inner {
                w: vec![f64::NAN; 3],
                b: f64::NAN,
            },
            c: 1e300,
            label: 0,
        };
        let mut dx = f64::NAN;
        let primal = allocations_during(|| {
            nested(&o, x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = nested_grad_into(&o, x, (&mut d_o, &mut dx)));
        let (expected_value, (eo, ex)) = nested_grad(&o, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&d_o.to_flat(), &eo.to_flat(), "nested");
        assert_same_bits(&[dx], &[ex], "nested");
        assert_eq!(d_o.label, 7);
        let mut flat = o.to_flat();
        flat.push(x);
        let mut gradient = d_o.to_flat();
        gradient.push(dx);
        let k = flat.len() - 1;
        assert_fd_gradient(
            |v| nested(&o.from_flat(&v[..k]), v[k]),
            &flat,
            &gradient,
            "nested",
        );
        assert_allocates_no_more("nested", primal, into);
    }
}

// ---------------------------------------------------------------------------------------------------
// Methods.

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Line {
    slope: f64,
    offsets: Vec<f64>,
}

impl Line {
    /// `wrt(self)`: the gradient is a `Line`.
    #[differentiable(wrt(self))]
    fn fit(&self, xs: &[f64], ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            let e = self.slope * xs[i] + self.offsets[i % 2] - ys[i];
            s += e * e;
        }
        s
    }

    /// `wrt(self, x)`.
    #[differentiable(wrt(self, x))]
    fn at(&self, x: f64, y: f64) -> f64 {
        let e = self.slope * x + self.offsets[0] - y;
        e * e + (self.offsets[1] * x).sin()
    }

    /// `self` constant: the gradient is in `x` alone.
    #[differentiable]
    fn weighted(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += self.offsets[i % 2] * x[i] * x[i] + self.slope * x[i];
        }
        s.exp()
    }
}

#[test]
fn a_method_in_self() {
    let mut inputs = Inputs(4007);
    for _ in 0..POINTS {
        let line = Line {
            slope: inputs.next(),
            offsets: inputs.vec(2),
        };
        let (xs, ys) = (inputs.vec(5), inputs.vec(5));
        let mut d = Line {
            slope: f64::NAN,
            offsets: vec![1e300; 2],
        };
        let primal = allocations_during(|| {
            line.fit(&xs, &ys);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = line.fit_grad_into(&xs, &ys, &mut d));
        let (expected_value, expected) = line.fit_grad(&xs, &ys);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&d.to_flat(), &expected.to_flat(), "fit");
        assert_fd_gradient(
            |v| line.from_flat(v).fit(&xs, &ys),
            &line.to_flat(),
            &d.to_flat(),
            "fit",
        );
        assert_allocates_no_more("fit", primal, into);
    }
}

#[test]
fn a_method_in_self_and_a_float() {
    let mut inputs = Inputs(4008);
    for _ in 0..POINTS {
        let line = Line {
            slope: inputs.next(),
            offsets: inputs.vec(2),
        };
        let (x, y) = (inputs.next(), inputs.next());
        let mut d = Line {
            slope: f64::NAN,
            offsets: vec![1e300; 2],
        };
        let mut dx = f64::NAN;
        let primal = allocations_during(|| {
            line.at(x, y);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = line.at_grad_into(x, y, (&mut d, &mut dx)));
        let (expected_value, (ed, ex)) = line.at_grad(x, y);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&d.to_flat(), &ed.to_flat(), "at");
        assert_same_bits(&[dx], &[ex], "at");
        let mut flat = line.to_flat();
        flat.push(x);
        let mut gradient = d.to_flat();
        gradient.push(dx);
        assert_fd_gradient(
            |v| line.from_flat(&v[..3]).at(v[3], y),
            &flat,
            &gradient,
            "at",
        );
        assert_allocates_no_more("at", primal, into);
    }
}

#[test]
fn a_method_with_a_constant_self() {
    let mut inputs = Inputs(4009);
    for _ in 0..POINTS {
        let line = Line {
            slope: inputs.next(),
            offsets: inputs.vec(2),
        };
        let x = inputs.vec(4);
        let mut dx = vec![f64::NAN; 4];
        let primal = allocations_during(|| {
            line.weighted(&x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = line.weighted_grad_into(&x, &mut dx));
        let (expected_value, expected) = line.weighted_grad(&x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&dx, &expected, "weighted");
        assert_fd_gradient(|x| line.weighted(x), &x, &dx, "weighted");
        assert_allocates_no_more("weighted", primal, into);
    }
}

/// A generic `impl`.
struct Scaled<T> {
    factor: T,
}

impl<T: Float> Scaled<T> {
    #[differentiable]
    fn energy(&self, x: T, y: &[T]) -> T {
        let mut s = self.factor * x.sin();
        for i in 0..y.len() {
            s = s + x * y[i] * y[i];
        }
        s
    }
}

#[test]
fn a_method_of_a_generic_impl() {
    let mut inputs = Inputs(4010);
    for _ in 0..POINTS {
        let scaled = Scaled {
            factor: 1.0 + inputs.next(),
        };
        let (x, y) = (inputs.next(), inputs.vec(3));
        let (mut dx, mut dy) = (f64::NAN, vec![1e300; 3]);
        let primal = allocations_during(|| {
            scaled.energy(x, &y);
        });
        let mut value = 0.0;
        let into =
            allocations_during(|| value = scaled.energy_grad_into(x, &y, (&mut dx, &mut dy)));
        let (expected_value, (ex, ey)) = scaled.energy_grad(x, &y);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&[dx], &[ex], "energy");
        assert_same_bits(&dy, &ey, "energy");
        let mut flat = vec![x];
        flat.extend(&y);
        let mut gradient = vec![dx];
        gradient.extend(&dy);
        assert_fd_gradient(|v| scaled.energy(v[0], &v[1..]), &flat, &gradient, "energy");
        assert_allocates_no_more("energy", primal, into);
        // At `f32` too.
        let scaled32 = Scaled {
            factor: scaled.factor as f32,
        };
        let y32: Vec<f32> = y.iter().map(|&v| v as f32).collect();
        let (mut dx32, mut dy32) = (f32::NAN, vec![f32::NAN; 3]);
        let value32 = scaled32.energy_grad_into(x as f32, &y32, (&mut dx32, &mut dy32));
        let (e32, (ex32, ey32)) = scaled32.energy_grad(x as f32, &y32);
        assert_eq!((value32, dx32, dy32), (e32, ex32, ey32));
    }
}

// ---------------------------------------------------------------------------------------------------
// Matrices.

/// Active matrices still have `f_grad`'s gradient copied into the buffers: the sweep reads a matrix
/// flattened (`__private::flatten`, `row_offsets`: allocations the function does not make), adds into a
/// flat adjoint and returns it reshaped (`unflatten_like`). So does a struct passed on whole, whose
/// gradient comes back from the callee as a value. Pinned, so that the day `f_grad_into` of such a
/// function allocates no more than the function, this check fails and becomes
/// `assert_allocates_no_more`.
#[track_caller]
fn assert_still_copied(case: &str, primal: usize, into: usize) {
    eprintln!("{case}: the function allocates {primal} times, f_grad_into {into} (copied)");
    assert!(
        into > primal || !OPTIMISED,
        "{case}: f_grad_into now allocates {into} times, the function {primal}: assert no more"
    );
}

/// `Σ_i (Σ_j m[i][j] x[j])²`: an active `&[Vec<f64>]` beside a slice.
#[differentiable]
fn rows_times(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let mut r = 0.0;
        for j in 0..x.len() {
            r += m[i][j] * x[j];
        }
        s += r * r;
    }
    s
}

fn flat_rows(m: &[Vec<f64>]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

fn rows_of(flat: &[f64], cols: usize) -> Vec<Vec<f64>> {
    flat.chunks(cols).map(<[f64]>::to_vec).collect()
}

#[test]
fn a_matrix_of_rows() {
    let mut inputs = Inputs(4011);
    for _ in 0..POINTS {
        let (m, x) = (inputs.rows(3, 2), inputs.vec(2));
        let (mut dm, mut dx) = (vec![vec![f64::NAN; 2]; 3], vec![1e300; 2]);
        let primal = allocations_during(|| {
            rows_times(&m, &x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = rows_times_grad_into(&m, &x, (&mut dm, &mut dx)));
        let (expected_value, (em, ex)) = rows_times_grad(&m, &x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&flat_rows(&dm), &flat_rows(&em), "rows_times");
        assert_same_bits(&dx, &ex, "rows_times");
        let mut flat = flat_rows(&m);
        flat.extend(&x);
        let mut gradient = flat_rows(&dm);
        gradient.extend(&dx);
        assert_fd_gradient(
            |v| rows_times(&rows_of(&v[..6], 2), &v[6..]),
            &flat,
            &gradient,
            "rows_times",
        );
        assert_still_copied("rows_times", primal, into);
    }
}

/// A `Vec<Vec<f64>>` taken by value, alone.
#[differentiable]
fn owned_rows(m: Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += (m[i][j] * (i + j + 1) as f64).cos();
        }
    }
    s
}

#[test]
fn a_matrix_taken_by_value() {
    let mut inputs = Inputs(4012);
    for _ in 0..POINTS {
        let m = inputs.rows(2, 3);
        let mut dm = vec![vec![f64::NAN; 3]; 2];
        let owned = m.clone();
        let primal = allocations_during(|| {
            owned_rows(owned);
        });
        let owned = m.clone();
        let mut value = 0.0;
        let into = allocations_during(|| value = owned_rows_grad_into(owned, &mut dm));
        let (expected_value, em) = owned_rows_grad(m.clone());
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&flat_rows(&dm), &flat_rows(&em), "owned_rows");
        assert_fd_gradient(
            |v| owned_rows(rows_of(v, 3)),
            &flat_rows(&m),
            &flat_rows(&dm),
            "owned_rows",
        );
        assert_still_copied("owned_rows", primal, into);
    }
}

/// `xᵀ A x + sin(a₀₁)`: an active `[[f64; 3]; 3]` and an array.
#[differentiable]
fn quadratic(a: [[f64; 3]; 3], x: [f64; 3]) -> f64 {
    let mut s = a[0][1].sin();
    for i in 0..3 {
        for j in 0..3 {
            s += x[i] * a[i][j] * x[j];
        }
    }
    s
}

#[test]
fn a_fixed_size_matrix() {
    let mut inputs = Inputs(4013);
    for _ in 0..POINTS {
        let mut a = [[0.0; 3]; 3];
        for row in &mut a {
            row.copy_from_slice(&inputs.vec(3));
        }
        let x = [inputs.next(), inputs.next(), inputs.next()];
        let (mut da, mut dx) = ([[f64::NAN; 3]; 3], [1e300; 3]);
        let primal = allocations_during(|| {
            quadratic(a, x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = quadratic_grad_into(a, x, (&mut da, &mut dx)));
        let (expected_value, (ea, ex)) = quadratic_grad(a, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(da.as_flattened(), ea.as_flattened(), "quadratic");
        assert_same_bits(&dx, &ex, "quadratic");
        let mut flat = a.as_flattened().to_vec();
        flat.extend(x);
        let mut gradient = da.as_flattened().to_vec();
        gradient.extend(dx);
        let f = |v: &[f64]| {
            let mut a = [[0.0; 3]; 3];
            for (row, chunk) in a.iter_mut().zip(v[..9].chunks(3)) {
                row.copy_from_slice(chunk);
            }
            quadratic(a, [v[9], v[10], v[11]])
        };
        assert_fd_gradient(f, &flat, &gradient, "quadratic");
        assert_still_copied("quadratic", primal, into);
    }
}

// ---------------------------------------------------------------------------------------------------
// `Vec<f64>` by value, tuples.

#[differentiable]
fn owned_vec(v: Vec<f64>, c: f64) -> f64 {
    let mut s = c;
    for i in 0..v.len() {
        s += v[i] * v[i] * c;
    }
    s.sqrt()
}

#[test]
fn a_vec_taken_by_value() {
    let mut inputs = Inputs(4014);
    for _ in 0..POINTS {
        let (v, c) = (inputs.vec(4), 2.0 + inputs.next());
        let (mut dv, mut dc) = (vec![f64::NAN; 4], f64::NAN);
        let owned = v.clone();
        let primal = allocations_during(|| {
            owned_vec(owned, c);
        });
        let owned = v.clone();
        let mut value = 0.0;
        let into = allocations_during(|| value = owned_vec_grad_into(owned, c, (&mut dv, &mut dc)));
        let (expected_value, (ev, ec)) = owned_vec_grad(v.clone(), c);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&dv, &ev, "owned_vec");
        assert_same_bits(&[dc], &[ec], "owned_vec");
        let mut flat = v.clone();
        flat.push(c);
        let mut gradient = dv.clone();
        gradient.push(dc);
        assert_fd_gradient(
            |x| owned_vec(x[..4].to_vec(), x[4]),
            &flat,
            &gradient,
            "owned_vec",
        );
        assert_allocates_no_more("owned_vec", primal, into);
    }
}

#[differentiable]
fn polar(p: (f64, f64), w: &[f64]) -> f64 {
    let (r, t) = p;
    r * t.cos() * w[0] + r * t.sin() * w[1]
}

#[test]
fn a_tuple_beside_a_slice() {
    let mut inputs = Inputs(4015);
    for _ in 0..POINTS {
        let (p, w) = ((inputs.next(), inputs.next()), inputs.vec(2));
        let (mut dp, mut dw) = ((f64::NAN, 1e300), vec![f64::NAN; 2]);
        let primal = allocations_during(|| {
            polar(p, &w);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = polar_grad_into(p, &w, (&mut dp, &mut dw)));
        let (expected_value, (ep, ew)) = polar_grad(p, &w);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&[dp.0, dp.1], &[ep.0, ep.1], "polar");
        assert_same_bits(&dw, &ew, "polar");
        assert_fd_gradient(
            |v| polar((v[0], v[1]), &v[2..]),
            &[p.0, p.1, w[0], w[1]],
            &[dp.0, dp.1, dw[0], dw[1]],
            "polar",
        );
        assert_allocates_no_more("polar", primal, into);
    }
}

// ---------------------------------------------------------------------------------------------------
// Parameter structs: `#[no_grad]` fields read, a nested `#[no_grad]` struct, a generic struct, a buffer of
// another shape, fields written, a struct passed on whole.

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Weighted {
    w: Vec<f64>,
    #[no_grad]
    scale: f64,
    #[no_grad]
    data: Vec<f64>,
    #[no_grad]
    on: bool,
}

/// `#[no_grad]` fields read as a float, an array of floats and a flag: their gradient is the primal's copy.
#[differentiable]
fn weighted_fit(p: &Weighted, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..p.w.len() {
        s += p.w[i] * p.data[i] * x;
    }
    if p.on {
        s *= p.scale;
    }
    s * s + x.sin() * p.scale
}

#[test]
fn no_grad_fields_read_by_the_body_are_copied() {
    let mut inputs = Inputs(4016);
    for point in 0..POINTS {
        let p = Weighted {
            w: inputs.vec(3),
            scale: 1.5 + inputs.next(),
            data: inputs.vec(3),
            on: point % 2 == 0,
        };
        let x = inputs.next();
        let mut dp = Weighted {
            w: vec![f64::NAN; 3],
            scale: f64::NAN,
            data: vec![1e300; 3],
            on: point % 2 == 1,
        };
        let mut dx = f64::NAN;
        let primal = allocations_during(|| {
            weighted_fit(&p, x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = weighted_fit_grad_into(&p, x, (&mut dp, &mut dx)));
        let (expected_value, (ep, ex)) = weighted_fit_grad(&p, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_eq!(
            dp, ep,
            "the #[no_grad] fields are the primal's, the rest f_grad's"
        );
        assert_eq!(
            (&dp.data, dp.scale.to_bits(), dp.on),
            (&p.data, p.scale.to_bits(), p.on)
        );
        assert_same_bits(&[dx], &[ex], "weighted_fit");
        let mut flat = p.w.clone();
        flat.push(x);
        let mut gradient = dp.w.clone();
        gradient.push(dx);
        let f = |v: &[f64]| {
            let mut q = p.clone();
            q.w.copy_from_slice(&v[..3]);
            weighted_fit(&q, v[3])
        };
        assert_fd_gradient(f, &flat, &gradient, "weighted_fit");
        assert_allocates_no_more("weighted_fit", primal, into);
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Layered {
    inner: Inner,
    #[no_grad]
    frozen: Inner,
    c: f64,
}

/// A nested struct marked `#[no_grad]`, its fields read (`l.frozen.w[i]`, `l.frozen.b`) beside another's.
#[differentiable]
fn layered(l: &Layered, x: f64) -> f64 {
    let mut s = l.c;
    for i in 0..l.inner.w.len() {
        s += l.inner.w[i] * l.frozen.w[i] * x + l.frozen.b * l.inner.b;
    }
    s * s
}

#[test]
fn a_nested_no_grad_struct_is_copied() {
    let mut inputs = Inputs(4017);
    for _ in 0..POINTS {
        let l = Layered {
            inner: Inner {
                w: inputs.vec(2),
                b: inputs.next(),
            },
            frozen: Inner {
                w: inputs.vec(2),
                b: inputs.next(),
            },
            c: inputs.next(),
        };
        let x = inputs.next();
        let garbage = || Inner {
            w: vec![f64::NAN; 2],
            b: 1e300,
        };
        let mut dl = Layered {
            inner: garbage(),
            frozen: garbage(),
            c: f64::NAN,
        };
        let mut dx = f64::NAN;
        let primal = allocations_during(|| {
            layered(&l, x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = layered_grad_into(&l, x, (&mut dl, &mut dx)));
        let (expected_value, (el, ex)) = layered_grad(&l, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_eq!(dl, el);
        assert_eq!(dl.frozen, l.frozen, "the #[no_grad] struct is the primal's");
        assert_same_bits(&[dx], &[ex], "layered");
        let mut flat = l.to_flat();
        flat.push(x);
        let mut gradient = dl.to_flat();
        gradient.push(dx);
        let k = flat.len() - 1;
        assert_fd_gradient(
            |v| layered(&l.from_flat(&v[..k]), v[k]),
            &flat,
            &gradient,
            "layered",
        );
        // One allocation more than the function: `zero_into` copies the `#[no_grad]` struct `frozen`
        // from the primal by `Clone::clone_from`, which `#[derive(Clone)]` implements as `clone`
        // (`frozen.w` is a new `Vec`).
        assert_allocates_at_most("layered", primal, 1, into);
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Affine<T: Float> {
    w: Vec<T>,
    b: T,
}

/// A generic struct of a generic function.
#[differentiable]
fn affine<T: Float>(a: &Affine<T>, x: &[T]) -> T {
    let mut s = a.b;
    for i in 0..x.len() {
        s = s + a.w[i] * x[i] * x[i];
    }
    s.tanh()
}

#[test]
fn a_generic_struct_at_f64_and_f32() {
    let mut inputs = Inputs(4018);
    for _ in 0..POINTS {
        let a = Affine {
            w: inputs.vec(3),
            b: inputs.next(),
        };
        let x = inputs.vec(3);
        let mut da = Affine {
            w: vec![f64::NAN; 3],
            b: f64::NAN,
        };
        let mut dx = vec![1e300; 3];
        let primal = allocations_during(|| {
            affine(&a, &x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = affine_grad_into(&a, &x, (&mut da, &mut dx)));
        let (expected_value, (ea, ex)) = affine_grad(&a, &x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&da.to_flat(), &ea.to_flat(), "affine");
        assert_same_bits(&dx, &ex, "affine");
        let mut flat = a.to_flat();
        flat.extend(&x);
        let mut gradient = da.to_flat();
        gradient.extend(&dx);
        assert_fd_gradient(
            |v| affine(&a.from_flat(&v[..4]), &v[4..]),
            &flat,
            &gradient,
            "affine",
        );
        assert_allocates_no_more("affine", primal, into);
        // At `f32`, against `f32`'s `f_grad`.
        let a32 = Affine {
            w: a.w.iter().map(|&v| v as f32).collect(),
            b: a.b as f32,
        };
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut da32 = Affine {
            w: vec![f32::NAN; 3],
            b: f32::NAN,
        };
        let mut dx32 = vec![f32::NAN; 3];
        let value32 = affine_grad_into(&a32, &x32, (&mut da32, &mut dx32));
        let (e32, (ea32, ex32)) = affine_grad(&a32, &x32);
        assert_eq!((value32, &da32, &dx32), (e32, &ea32, &ex32));
    }
}

/// A buffer struct of another shape than the parameter (an empty `Vec`) is reshaped: `f_grad_into`
/// overwrites the caller's struct whatever it held, as assigning `f_grad`'s gradient did.
#[test]
fn a_struct_buffer_of_another_shape_is_reshaped() {
    let mut inputs = Inputs(4019);
    let m = Model::random(&mut inputs, 3);
    let x = inputs.next();
    for w in [Vec::new(), vec![f64::NAN; 7]] {
        let mut dm = Model {
            w,
            b: f64::NAN,
            a: [f64::NAN; 2],
            n: 0,
        };
        let mut dx = f64::NAN;
        let value = model_loss_grad_into(&m, x, (&mut dm, &mut dx));
        let (expected_value, (em, ex)) = model_loss_grad(&m, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_eq!(dm, em);
        assert_same_bits(&[dx], &[ex], "model_loss");
    }
}

impl Line {
    /// `self` taken by value, `wrt(self)`.
    #[differentiable(wrt(self))]
    fn owned_fit(self, x: f64, y: f64) -> f64 {
        let e = self.slope * x + self.offsets[0] - y;
        e * e * self.offsets[1].exp()
    }
}

#[test]
fn a_method_taking_self_by_value() {
    let mut inputs = Inputs(4020);
    for _ in 0..POINTS {
        let line = Line {
            slope: inputs.next(),
            offsets: inputs.vec(2),
        };
        let (x, y) = (inputs.next(), inputs.next());
        let mut d = Line {
            slope: f64::NAN,
            offsets: vec![1e300; 2],
        };
        let owned = line.clone();
        let primal = allocations_during(|| {
            owned.owned_fit(x, y);
        });
        let owned = line.clone();
        let mut value = 0.0;
        let into = allocations_during(|| value = owned.owned_fit_grad_into(x, y, &mut d));
        let (expected_value, expected) = line.clone().owned_fit_grad(x, y);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_same_bits(&d.to_flat(), &expected.to_flat(), "owned_fit");
        assert_fd_gradient(
            |v| line.from_flat(v).owned_fit(x, y),
            &line.to_flat(),
            &d.to_flat(),
            "owned_fit",
        );
        assert_allocates_no_more("owned_fit", primal, into);
    }
}

/// A struct taken by value whose fields the body writes (`m.b = ..`, `m.w[0] += ..`).
#[differentiable]
fn fields_written(mut m: Model, x: f64) -> f64 {
    m.b *= x;
    m.w[0] += x * m.a[1];
    m.b * m.w[0] + m.w[1] * m.w[2]
}

#[test]
fn a_struct_whose_fields_the_body_writes() {
    ModelCase {
        name: "fields_written",
        seed: 4021,
        // The primal writes `m.w` in place; the sweep writes a copy of it (`__m_w.to_vec()`, the field
        // input made a local by `structs::copy_written_fields`) and the copy's adjoint: its own two
        // allocations, as `f_vjp` makes them too, not a copy of the gradient.
        sweep_allocates: 2,
        f: |m: &Model, x| fields_written(m.clone(), x),
        primal_counted: |m: &Model, x| {
            let m = m.clone();
            allocations_during(|| {
                fields_written(m, x);
            })
        },
        grad: |m: &Model, x| fields_written_grad(m.clone(), x),
        into_counted: |m: &Model, x, buffers: (&mut Model, &mut f64)| {
            let m = m.clone();
            let mut value = 0.0;
            let n = allocations_during(|| value = fields_written_grad_into(m, x, buffers));
            (value, n)
        },
    }
    .check();
}

/// A struct passed on whole to another differentiable function: its gradient comes back from the callee
/// as a value, and `f_grad_into` copies `f_grad`'s (`assert_still_copied`).
#[differentiable]
fn passed_on(m: &Model, x: f64) -> f64 {
    model_loss(m, x) * m.b + x
}

#[test]
fn a_struct_passed_on_whole() {
    let mut inputs = Inputs(4022);
    for _ in 0..POINTS {
        let m = Model::random(&mut inputs, 3);
        let x = inputs.next();
        let (mut dm, mut dx) = (m.garbage(), f64::NAN);
        let primal = allocations_during(|| {
            passed_on(&m, x);
        });
        let mut value = 0.0;
        let into = allocations_during(|| value = passed_on_grad_into(&m, x, (&mut dm, &mut dx)));
        let (expected_value, (em, ex)) = passed_on_grad(&m, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        assert_eq!(dm, em);
        assert_same_bits(&[dx], &[ex], "passed_on");
        let mut flat = m.to_flat();
        flat.push(x);
        let mut gradient = dm.to_flat();
        gradient.push(dx);
        let k = flat.len() - 1;
        assert_fd_gradient(
            |v| passed_on(&m.from_flat(&v[..k]), v[k]),
            &flat,
            &gradient,
            "passed_on",
        );
        assert_still_copied("passed_on", primal, into);
    }
}

// ---------------------------------------------------------------------------------------------------
// `f_vjp` and `f_grad` of parameter structs and methods run the same sweep into zeroed gradients: they
// allocate the gradient (one `Vec` per `Vec` field) and nothing else.

#[test]
fn f_vjp_of_a_struct_allocates_the_gradient_alone() {
    let mut inputs = Inputs(4023);
    for _ in 0..POINTS {
        let m = Model::random(&mut inputs, 3);
        let (x, d_ret) = (inputs.next(), 1.0 + inputs.next());
        let mut result = None;
        let n = allocations_during(|| result = Some(model_loss_vjp(&m, x, d_ret)));
        let (value, (dm, dx)) = result.expect("called");
        // `Model`'s gradient holds one `Vec` (`w`).
        assert!(n == 1 || !OPTIMISED, "model_loss_vjp allocated {n} times");
        let (expected_value, (em, ex)) = model_loss_grad(&m, x);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        let scaled: Vec<f64> = em.to_flat().iter().map(|g| g * d_ret).collect();
        common::assert_all_close(&dm.to_flat(), &scaled, 1e-14, "model_loss_vjp");
        common::assert_close(dx, ex * d_ret, 1e-14, "model_loss_vjp");
        assert_eq!(dm.n, m.n);
        let n = allocations_during(|| {
            model_loss_grad(&m, x);
        });
        assert!(n == 1 || !OPTIMISED, "model_loss_grad allocated {n} times");

        let line = Line {
            slope: inputs.next(),
            offsets: inputs.vec(2),
        };
        let (xs, ys) = (inputs.vec(4), inputs.vec(4));
        let mut result = None;
        let n = allocations_during(|| result = Some(line.fit_vjp(&xs, &ys, d_ret)));
        let (value, d) = result.expect("called");
        assert!(n == 1 || !OPTIMISED, "fit_vjp allocated {n} times");
        let (expected_value, expected) = line.fit_grad(&xs, &ys);
        assert_eq!(value.to_bits(), expected_value.to_bits());
        let scaled: Vec<f64> = expected.to_flat().iter().map(|g| g * d_ret).collect();
        common::assert_all_close(&d.to_flat(), &scaled, 1e-14, "fit_vjp");
        assert_fd_gradient(
            |v| line.from_flat(v).fit(&xs, &ys),
            &line.to_flat(),
            &expected.to_flat(),
            "fit_grad",
        );
    }
}
