//! Run-time support of the `--order2` work crate (written there as `src/support.rs`): inputs of the right
//! shape for each parameter, and the checks of `f_grad` against central differences of the function's value
//! and of `f_hessian` against central differences of `f_grad`; then of the other generated items against
//! those two: `f_jvp` and `f_hvp` along a fixed tangent, `f_grad_into` into buffers filled with garbage,
//! `f_derivatives`, and (for a function of several results) `f_jacobian` against `f_vjp`.
#![allow(dead_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};

/// One guess at the shapes a function's inputs have: every slice or `Vec` of floats has `len` elements, a
/// matrix `rows` rows of `len`, every integer parameter the value `int`, every `bool` `flag`; but where
/// `lens` is not empty, the `k`-th slice or `Vec` of scalars taken (floats or integers; a matrix's rows
/// count) has `lens[k]` elements (`len` past its end), and the integers in slices (labels) the value
/// `label`. The last guesses serve functions whose slices differ in length by a rule of their integer
/// parameters (`w: &[f64]` of `k * d` weights, `data` of `m * d` values, `labels` of `m` classes below `k`).
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub len: usize,
    pub rows: usize,
    pub int: usize,
    pub flag: bool,
    pub lens: &'static [usize],
    pub label: usize,
    /// Added to every float of the point (uniform in [0.2, 0.9]): the last guesses move the point to where
    /// functions with a domain beyond 1 or below 0 are defined (`acosh`, `acoth`, `asec`, `log1m_exp`).
    pub shift: f64,
}

/// The guesses, tried in order until `f_grad` runs without a panic and gives a finite value.
pub const CONFIGS: &[Config] = &[
    Config { len: 3, rows: 2, int: 2, flag: true, lens: &[], label: 2, shift: 0.0 },
    Config { len: 4, rows: 3, int: 3, flag: false, lens: &[], label: 3, shift: 0.0 },
    Config { len: 3, rows: 3, int: 3, flag: true, lens: &[], label: 3, shift: 0.0 },
    Config { len: 2, rows: 2, int: 1, flag: false, lens: &[], label: 1, shift: 0.0 },
    Config { len: 4, rows: 2, int: 2, flag: true, lens: &[], label: 2, shift: 0.0 },
    Config { len: 6, rows: 3, int: 2, flag: true, lens: &[], label: 2, shift: 0.0 },
    Config { len: 6, rows: 2, int: 3, flag: false, lens: &[], label: 3, shift: 0.0 },
    Config { len: 8, rows: 2, int: 4, flag: true, lens: &[], label: 4, shift: 0.0 },
    Config { len: 9, rows: 3, int: 3, flag: true, lens: &[], label: 3, shift: 0.0 },
    Config { len: 1, rows: 1, int: 1, flag: true, lens: &[], label: 1, shift: 0.0 },
    Config { len: 5, rows: 5, int: 5, flag: true, lens: &[], label: 5, shift: 0.0 },
    Config { len: 4, rows: 4, int: 0, flag: true, lens: &[], label: 0, shift: 0.0 },
    Config { len: 12, rows: 4, int: 3, flag: true, lens: &[], label: 3, shift: 0.0 },
    // `rows_through_a_call(w, data, labels, d, k)`: `k = d = 2`, `w` of `k d`, `data` of `m d`, `m` labels.
    Config { len: 4, rows: 2, int: 2, flag: true, lens: &[4, 4, 2], label: 0, shift: 0.0 },
    // `loss(w, xs, ys)` of three features: `w` of 3 + 1, `xs` of 3 per sample, `ys` of 2 samples.
    Config { len: 4, rows: 2, int: 2, flag: true, lens: &[4, 6, 2], label: 0, shift: 0.0 },
    // `state_and_rate(y, p, out)`: a state and parameters of 2, an output of 4 (`out[..2]` and `out[2..]`).
    Config { len: 4, rows: 2, int: 2, flag: true, lens: &[2, 2, 4], label: 0, shift: 0.0 },
    // `lstm_predict(l, b, w, w2, s, x, x2)` of ADBench at `l = b = 1`: `w` of `8 l b`, `w2` of `3 b`, the
    // state `s` of `2 l b`, the input and output of `b`.
    Config { len: 1, rows: 1, int: 1, flag: true, lens: &[8, 3, 2, 1, 1], label: 0, shift: 0.0 },
    // `gru_cell(x, h, w, u, b, h_new)` with an input of 2 and a state of 1: three rows of `w` (of 2) and of
    // `u` (of 1), `b` of 3.
    Config { len: 2, rows: 3, int: 1, flag: true, lens: &[2, 1, 2, 2, 2, 1, 1, 1, 3, 1], label: 0, shift: 0.0 },
    // `lstm_cell(x, h, c, w, b, h_new, c_new)` with an input and a state of 1: four gates' rows of `w` (of
    // input plus state), `b` of 4.
    Config { len: 1, rows: 4, int: 1, flag: true, lens: &[1, 1, 1, 2, 2, 2, 2, 4, 1, 1], label: 0, shift: 0.0 },
    // Floats in [1.2, 1.9] (`acosh`, `acoth`, `asec`, `acsc`) and in [-1, -0.3] (`log1m_exp`).
    Config { len: 3, rows: 2, int: 2, flag: true, lens: &[], label: 2, shift: 1.0 },
    Config { len: 3, rows: 2, int: 2, flag: true, lens: &[], label: 2, shift: -1.2 },
];

/// The floats of one point, made on demand in the order the parameters take them, with which are active.
#[derive(Clone, Debug)]
pub struct Source {
    pub values: Vec<f64>,
    pub active: Vec<bool>,
    /// For each float, the output parameter it is the incoming value of (`take_output`'s count), if any:
    /// those floats are in the gradient only if the function reads that output's incoming value.
    pub output: Vec<Option<usize>>,
    /// The output parameter being taken, and how many have been.
    taking_output: Option<usize>,
    outputs: usize,
    /// The slices taken so far (`Config::lens`).
    slices: usize,
    pos: usize,
    state: u64,
    /// The point's seed, which picks the variant of an enum parameter (`pick`).
    seed: u64,
}

impl Source {
    pub fn new(seed: u64) -> Self {
        Source {
            values: Vec::new(),
            active: Vec::new(),
            output: Vec::new(),
            taking_output: None,
            outputs: 0,
            slices: 0,
            pos: 0,
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            seed,
        }
    }

    /// Which of `n` variants an enum parameter takes at this point: the points of a check (seeds 1, 2, 3)
    /// see different ones.
    pub fn pick(&self, n: usize) -> usize {
        (self.seed as usize) % n
    }

    /// The same point from its start, to be read again.
    pub fn replay(&self) -> Self {
        Source { pos: 0, outputs: 0, slices: 0, ..self.clone() }
    }

    /// The next float: uniform in [0.2, 0.9], inside the domain of `ln`, `sqrt`, `acos` and friends.
    pub fn next(&mut self, active: bool) -> f64 {
        if self.pos == self.values.len() {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            let u = (self.state >> 11) as f64 / (1u64 << 53) as f64;
            self.values.push(0.2 + 0.7 * u);
            self.active.push(active);
            self.output.push(self.taking_output);
        }
        self.pos += 1;
        self.values[self.pos - 1]
    }

    pub fn take<T: Take>(&mut self, active: bool, c: &Config) -> T {
        T::take(self, active, c)
    }

    /// An output parameter's buffer, its incoming value made of the point's floats like an input's.
    pub fn take_output<T: Take>(&mut self, active: bool, c: &Config) -> T {
        self.taking_output = Some(self.outputs);
        self.outputs += 1;
        let value = T::take(self, active, c);
        self.taking_output = None;
        value
    }

    /// The candidate sets of inputs of the gradient, in order: the active floats, each output's only
    /// where the function reads it, for every choice of those outputs whose floats add up to `len`.
    pub fn gradient_inputs(&self, len: usize) -> Vec<Vec<usize>> {
        let outputs = self.output.iter().flatten().max().map_or(0, |m| m + 1);
        (0..1usize << outputs)
            .map(|read| {
                (0..self.values.len())
                    .filter(|&i| self.active[i] && self.output[i].is_none_or(|o| read >> o & 1 == 1))
                    .collect::<Vec<usize>>()
            })
            .filter(|inputs| inputs.len() == len)
            .collect()
    }
}

/// A parameter made from a `Source`.
pub trait Take: Sized {
    /// Whether a `Vec` of it is a matrix (its length is `rows`, not `len`).
    const NESTED: bool = false;
    fn take(src: &mut Source, active: bool, c: &Config) -> Self;
    /// An element of a slice or `Vec`: the same, but for integers (`Config::label`).
    fn element(src: &mut Source, active: bool, c: &Config) -> Self {
        Self::take(src, active, c)
    }
}

impl Take for f64 {
    fn take(src: &mut Source, active: bool, c: &Config) -> Self {
        src.next(active) + c.shift
    }
}

impl Take for f32 {
    fn take(src: &mut Source, active: bool, c: &Config) -> Self {
        (src.next(active) + c.shift) as f32
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Take for $t {
            fn take(_: &mut Source, _: bool, c: &Config) -> Self {
                c.int as $t
            }
            fn element(_: &mut Source, _: bool, c: &Config) -> Self {
                c.label as $t
            }
        }
    )*};
}
integers!(usize, u8, u16, u32, u64, isize, i8, i16, i32, i64);

/// Text (a `&str` parameter, a `String` field): a fixed word, which the functions of the suites read as
/// data (its length, a match on it).
impl Take for String {
    fn take(_: &mut Source, _: bool, _: &Config) -> Self {
        String::from("order2")
    }
}

/// An optional field (a link of a list, `Option<Box<Node>>`): `None`.
impl<T> Take for Option<T> {
    fn take(_: &mut Source, _: bool, _: &Config) -> Self {
        None
    }
}

impl Take for bool {
    fn take(_: &mut Source, _: bool, c: &Config) -> Self {
        c.flag
    }
}

impl<T: Take> Take for Vec<T> {
    const NESTED: bool = true;
    fn take(src: &mut Source, active: bool, c: &Config) -> Self {
        if T::NESTED {
            return (0..c.rows).map(|_| T::take(src, active, c)).collect();
        }
        let n = c.lens.get(src.slices).copied().unwrap_or(c.len);
        src.slices += 1;
        (0..n).map(|_| T::element(src, active, c)).collect()
    }
}

impl<T: Take, const N: usize> Take for [T; N] {
    const NESTED: bool = true;
    fn take(src: &mut Source, active: bool, c: &Config) -> Self {
        core::array::from_fn(|_| T::take(src, active, c))
    }
}

macro_rules! tuples {
    ($(($($t:ident),*)),*) => {$(
        impl<$($t: Take),*> Take for ($($t,)*) {
            fn take(src: &mut Source, active: bool, c: &Config) -> Self {
                ($($t::take(src, active, c),)*)
            }
            /// A tuple in a slice (an edge `(i, j)`, a sparse entry `(i, j, v)`): its integers are
            /// labels, the `n`-th of them `label + n`, so that the two ends of an edge differ.
            #[allow(unused_assignments)]
            fn element(src: &mut Source, active: bool, c: &Config) -> Self {
                let mut n = 0;
                ($({
                    let at = Config { label: c.label + n, ..*c };
                    n += 1;
                    $t::element(src, active, &at)
                },)*)
            }
        }
        impl<$($t: Flat),*> Flat for ($($t,)*) {
            #[allow(non_snake_case)]
            fn flat(&self, out: &mut Vec<f64>) {
                let ($($t,)*) = self;
                $($t.flat(out);)*
            }
        }
        impl<$($t: Cotangent),*> Cotangent for ($($t,)*) {
            #[allow(non_snake_case)]
            fn cotangent(&self, k: &mut usize) -> Self {
                let ($($t,)*) = self;
                ($($t.cotangent(k),)*)
            }
        }
        impl<$($t: Fill),*> Fill for ($($t,)*) {
            #[allow(non_snake_case)]
            fn fill(&mut self, x: f64) {
                let ($($t,)*) = self;
                $($t.fill(x);)*
            }
        }
    )*};
}

/// A gradient (or a Hessian) flattened in declaration order, row-major.
pub trait Flat {
    fn flat(&self, out: &mut Vec<f64>);
}

impl Flat for f64 {
    fn flat(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
}

impl Flat for f32 {
    fn flat(&self, out: &mut Vec<f64>) {
        out.push(*self as f64);
    }
}

impl<T: Flat> Flat for Vec<T> {
    fn flat(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|x| x.flat(out));
    }
}

impl<T: Flat, const N: usize> Flat for [T; N] {
    fn flat(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|x| x.flat(out));
    }
}

tuples!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, G),
    (A, B, C, D, E, G, H),
    (A, B, C, D, E, G, H, I),
    (A, B, C, D, E, G, H, I, J),
    (A, B, C, D, E, G, H, I, J, K),
    (A, B, C, D, E, G, H, I, J, K, L),
    (A, B, C, D, E, G, H, I, J, K, L, M)
);

/// A gradient's value, every float of it set to `x` (the garbage `f_grad_into`'s buffers hold before the
/// call, which it must overwrite).
pub trait Fill {
    fn fill(&mut self, x: f64);
}

impl Fill for f64 {
    fn fill(&mut self, x: f64) {
        *self = x;
    }
}

impl Fill for f32 {
    fn fill(&mut self, x: f64) {
        *self = x as f32;
    }
}

impl<T: Fill> Fill for Vec<T> {
    fn fill(&mut self, x: f64) {
        self.iter_mut().for_each(|v| v.fill(x));
    }
}

impl<T: Fill, const N: usize> Fill for [T; N] {
    fn fill(&mut self, x: f64) {
        self.iter_mut().for_each(|v| v.fill(x));
    }
}

/// `f_grad_into`'s `grad` argument (`Self`, the type its signature says) made from a gradient value `G`
/// of `f_grad`'s type, which holds the floats: `&mut T` of a float, `&mut [T; N]` of an array, `&mut S` of a
/// struct (and of one tuple parameter), `&mut [T]` of a `Vec` (a matrix's rows too), and for several
/// active parameters a tuple of those. rustc picks the impl from the parameter's type.
pub trait BufferOf<'a, G> {
    fn buffer_of(g: &'a mut G) -> Self;
}

impl<'a, G> BufferOf<'a, G> for &'a mut G {
    fn buffer_of(g: &'a mut G) -> Self {
        g
    }
}

impl<'a, T> BufferOf<'a, Vec<T>> for &'a mut [T] {
    fn buffer_of(g: &'a mut Vec<T>) -> Self {
        &mut g[..]
    }
}

/// An output's cotangent as `f_vjp` takes it (`Self`), made from a value `G` shaped like the output:
/// `&[T]` of a `Vec`, `&[T; N]` of an array, the float itself of a float output.
pub trait ArgOf<'a, G> {
    fn arg_of(g: &'a G) -> Self;
}

impl<'a, G> ArgOf<'a, G> for &'a G {
    fn arg_of(g: &'a G) -> Self {
        g
    }
}

impl<'a, T> ArgOf<'a, Vec<T>> for &'a [T] {
    fn arg_of(g: &'a Vec<T>) -> Self {
        &g[..]
    }
}

impl ArgOf<'_, f64> for f64 {
    fn arg_of(g: &f64) -> Self {
        *g
    }
}

impl ArgOf<'_, f32> for f32 {
    fn arg_of(g: &f32) -> Self {
        *g
    }
}

macro_rules! buffers {
    ($(($($t:ident $g:ident),*)),*) => {$(
        #[allow(non_snake_case)]
        impl<'a, $($t: BufferOf<'a, $g>, $g),*> BufferOf<'a, ($($g,)*)> for ($($t,)*) {
            fn buffer_of(g: &'a mut ($($g,)*)) -> Self {
                let ($($g,)*) = g;
                ($(<$t as BufferOf<'a, $g>>::buffer_of($g),)*)
            }
        }
    )*};
}

buffers!(
    (A GA),
    (A GA, B GB),
    (A GA, B GB, C GC),
    (A GA, B GB, C GC, D GD),
    (A GA, B GB, C GC, D GD, E GE),
    (A GA, B GB, C GC, D GD, E GE, F GF),
    (A GA, B GB, C GC, D GD, E GE, F GF, H GH),
    (A GA, B GB, C GC, D GD, E GE, F GF, H GH, I GI),
    (A GA, B GB, C GC, D GD, E GE, F GF, H GH, I GI, J GJ),
    (A GA, B GB, C GC, D GD, E GE, F GF, H GH, I GI, J GJ, K GK),
    (A GA, B GB, C GC, D GD, E GE, F GF, H GH, I GI, J GJ, K GK, L GL),
    (A GA, B GB, C GC, D GD, E GE, F GF, H GH, I GI, J GJ, K GK, L GL, M GM)
);

/// What one call gave: the value, the flattened gradient and (from `f_hessian`) the Hessian's rows; from
/// `f_hvp`, the tangent's floats (`weights`) and the product; from `f_jacobian`, its rows (as `hessian`) and
/// the cotangent's floats (`weights`).
pub struct Eval {
    pub value: f64,
    pub gradient: Vec<f64>,
    pub hessian: Option<Vec<Vec<f64>>>,
    pub single: bool,
    pub weights: Vec<f64>,
    pub product: Vec<f64>,
}

fn flat_of(x: &impl Flat) -> Vec<f64> {
    let mut out = Vec::new();
    x.flat(&mut out);
    out
}

impl Eval {
    pub fn new<R: Flat + 'static, G: Flat, H: Flat>(value: R, gradient: &G, hessian: Option<&Vec<H>>) -> Self {
        let mut v = Vec::new();
        value.flat(&mut v);
        let mut g = Vec::new();
        gradient.flat(&mut g);
        let hessian = hessian.map(|rows| {
            rows.iter()
                .map(|r| {
                    let mut out = Vec::new();
                    r.flat(&mut out);
                    out
                })
                .collect()
        });
        let single = core::any::TypeId::of::<R>() == core::any::TypeId::of::<f32>();
        Eval {
            value: v.first().copied().unwrap_or(f64::NAN),
            gradient: g,
            hessian,
            single,
            weights: Vec::new(),
            product: Vec::new(),
        }
    }
}

impl Eval {
    /// `<y, d>` as the value (a function of several results seen through a fixed cotangent), with
    /// `gradient` (`f_vjp`'s for `d`, or nothing), and no Hessian.
    pub fn projected<R: Flat, G: Flat>(y: &R, d: &R, gradient: &G, single: bool) -> Self {
        let (mut a, mut b, mut g) = (Vec::new(), Vec::new(), Vec::new());
        y.flat(&mut a);
        d.flat(&mut b);
        gradient.flat(&mut g);
        let value = if a.len() == b.len() {
            a.iter().zip(&b).map(|(y, d)| y * d).sum()
        } else {
            f64::NAN
        };
        Eval { value, gradient: g, hessian: None, single, weights: Vec::new(), product: Vec::new() }
    }

    /// Forward mode against reverse mode: `f_jvp`'s derivative `dv` along the tangent `t` as the value,
    /// and the inner product of `f_grad`'s `gradient` with `t` as the one element of the gradient.
    pub fn tangent<G: Flat>(dv: impl Flat, gradient: &G, t: &G) -> Self {
        let (mut v, mut g, mut d) = (Vec::new(), Vec::new(), Vec::new());
        dv.flat(&mut v);
        gradient.flat(&mut g);
        t.flat(&mut d);
        let inner = if g.len() == d.len() {
            g.iter().zip(&d).map(|(g, d)| g * d).sum()
        } else {
            f64::NAN
        };
        Eval {
            value: v.first().copied().unwrap_or(f64::NAN),
            gradient: vec![inner],
            hessian: None,
            single: false,
            weights: Vec::new(),
            product: Vec::new(),
        }
    }

    /// Forward mode against reverse mode for a function of several results: the tangents `dv` of its
    /// results (`f_jvp`'s) seen through the cotangent `d` as the value, and `f_vjp`'s gradient `g` for `d`
    /// seen through the tangent `t` as the one element of the gradient.
    pub fn through<R: Flat, G: Flat>(dv: &R, d: &R, g: &G, t: &G) -> Self {
        let inner = |a: Vec<f64>, b: Vec<f64>| {
            if a.len() == b.len() {
                a.iter().zip(&b).map(|(a, b)| a * b).sum()
            } else {
                f64::INFINITY
            }
        };
        // (Lengths that differ give an infinite value, which the check reports, not NaN, which would
        // read as a function without `f_jvp`.)
        let value = inner(flat_of(dv), flat_of(d));
        Eval {
            value,
            gradient: vec![inner(flat_of(g), flat_of(t))],
            hessian: None,
            single: false,
            weights: Vec::new(),
            product: Vec::new(),
        }
    }

    /// `f_hvp`'s value, gradient and product `hv` along the tangent `t` (`Ask::Hvp`).
    pub fn hvp<R: Flat + 'static, G: Flat>(value: R, gradient: &G, hv: &G, t: &G) -> Self {
        let mut e = Eval::new(value, gradient, None::<&Vec<f64>>);
        e.weights = flat_of(t);
        e.product = flat_of(hv);
        e
    }

    /// `f_derivatives`' `[f, f', f'', ..]` as a value, a gradient of one and a Hessian of one; the
    /// derivatives past the second (`order = 3` and up, `--order3`) as `product`.
    pub fn derivatives<T: Flat + 'static>(d: &[T]) -> Self {
        let d: Vec<f64> = d.iter().flat_map(flat_of).collect();
        let at = |k: usize| d.get(k).copied().unwrap_or(f64::NAN);
        Eval {
            value: at(0),
            gradient: vec![at(1)],
            hessian: Some(vec![vec![at(2)]]),
            single: core::any::TypeId::of::<T>() == core::any::TypeId::of::<f32>(),
            weights: Vec::new(),
            product: d.get(3..).map(<[f64]>::to_vec).unwrap_or_default(),
        }
    }

    /// `f_jacobian`'s rows (as `hessian`) and the cotangent `d`'s floats (as `weights`), for the check
    /// `d^T J = f_vjp(d)`.
    pub fn jacobian<T: Flat, R: Flat>(j: &[Vec<T>], d: &R, single: bool) -> Self {
        Eval {
            value: 0.0,
            gradient: Vec::new(),
            hessian: Some(j.iter().map(flat_of).collect()),
            single,
            weights: flat_of(d),
            product: Vec::new(),
        }
    }

    /// The answer of a check without a Hessian (or tangent) to ask for.
    pub fn without_hessian() -> Self {
        Eval {
            value: f64::NAN,
            gradient: Vec::new(),
            hessian: None,
            single: false,
            weights: Vec::new(),
            product: Vec::new(),
        }
    }
}

/// A fixed cotangent shaped like a result: the `k`-th float of the result's flat order (`k` counts the floats
/// made so far) is `weight(k)`, so that no element's adjoint is left out or weighed alike.
pub trait Cotangent {
    fn cotangent(&self, k: &mut usize) -> Self;
}

/// The `k`-th weight of a cotangent or tangent: a magnitude in [0.3, 1.1] and a sign, both from the
/// fractional parts of multiples of irrational numbers, so that the sequence never repeats (with a period,
/// two elements a period apart swapped, say two rows of a Jacobian, would give the same inner product).
fn weight(k: usize) -> f64 {
    let n = (k + 1) as f64;
    let magnitude = 0.3 + 0.8 * (n * 0.618_033_988_749_894_9).fract();
    if (n * core::f64::consts::SQRT_2).fract() < 0.4 {
        -magnitude
    } else {
        magnitude
    }
}

impl Cotangent for f64 {
    fn cotangent(&self, k: &mut usize) -> Self {
        *k += 1;
        weight(*k - 1)
    }
}

impl Cotangent for f32 {
    fn cotangent(&self, k: &mut usize) -> Self {
        *k += 1;
        weight(*k - 1) as f32
    }
}

impl<T: Cotangent> Cotangent for Vec<T> {
    fn cotangent(&self, k: &mut usize) -> Self {
        self.iter().map(|x| x.cotangent(k)).collect()
    }
}

impl<T: Cotangent, const N: usize> Cotangent for [T; N] {
    fn cotangent(&self, k: &mut usize) -> Self {
        let mut out = self.iter().map(|x| x.cotangent(k));
        core::array::from_fn(|_| out.next().expect("as many as N"))
    }
}

/// What a check's call asks of the function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ask {
    /// `f` itself: the value alone (the gradient left empty).
    Value,
    /// `f_grad`.
    Gradient,
    /// `f_hessian`.
    Hessian,
    /// `f_jvp` for a fixed tangent shaped like the gradient (`Eval::tangent`), where the check has it.
    Tangent,
    /// `f_hvp` for the same tangent (`Eval::hvp`).
    Hvp,
    /// `f_grad_into` into buffers shaped like the gradient and filled with this value before the call; the
    /// value and the buffers as the answer.
    Into(f64),
    /// `f_derivatives` (`Eval::derivatives`), where the function has it.
    Derivatives,
    /// `f_jacobian` (`Eval::jacobian`) of a function of several results, where it has it.
    Jacobian,
}

/// The generated check of one function: makes its inputs from the source and calls `f`, `f_grad`,
/// `f_hessian` or another generated item as asked; an item it does not have gives a NaN value
/// (`Eval::without_hessian`).
pub type Check = fn(&Config, &mut Source, Ask) -> Eval;

fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into())
    })
}

/// `ok <points>`, `wrong <why>`, `panic <why>` or `noinput <why>`.
pub fn check(f: Check) -> String {
    let mut last = String::from("no configuration gave a finite value");
    for c in CONFIGS {
        let mut src = Source::new(1);
        match quietly(|| f(c, &mut src, Ask::Gradient)) {
            Ok(e) if e.value.is_finite() && e.gradient.iter().all(|g| g.is_finite()) => {
                return check_points(f, c);
            }
            Ok(_) => last = format!("non-finite value or gradient with {c:?}"),
            Err(m) => last = format!("f_grad panicked with {c:?}: {m}"),
        }
    }
    format!("noinput {last}")
}

fn check_points(f: Check, c: &Config) -> String {
    let mut checked = 0;
    let mut forward = false;
    let mut seen = Seen::default();
    for seed in 1..=3u64 {
        let mut src = Source::new(seed);
        let base = match quietly(|| f(c, &mut src, Ask::Gradient)) {
            Ok(e) if e.value.is_finite() && e.gradient.iter().all(|g| g.is_finite()) => e,
            _ => continue,
        };
        let h = match quietly(|| f(c, &mut src.replay(), Ask::Hessian)) {
            Ok(h) => h,
            Err(m) => return format!("panic f_hessian panicked with {c:?}: {m}"),
        };
        let tol = if base.single { 2e-2 } else { 1e-5 };
        let close = |a: f64, b: f64, scale: f64| (a - b).abs() <= tol * scale.max(1.0) || a == b;
        let gscale = base.gradient.iter().fold(base.value.abs(), |s, g| s.max(g.abs()));
        // A function of several results (`vjp_check`) has no Hessian: its gradient alone is checked.
        let hessian = h.hessian.clone();
        if hessian.is_some()
            && (!close(h.value, base.value, gscale)
                || h.gradient.len() != base.gradient.len()
                || h.gradient.iter().zip(&base.gradient).any(|(a, b)| !close(*a, *b, gscale)))
        {
            return format!(
                "wrong f_hessian's value and gradient {} {:?} differ from f_grad's {} {:?}",
                h.value, h.gradient, base.value, base.gradient
            );
        }
        let candidates = src.gradient_inputs(base.gradient.len());
        if candidates.is_empty() {
            return format!(
                "wrong shape: {} active inputs, a gradient of {}, a Hessian of {} rows",
                src.active.iter().filter(|a| **a).count(),
                base.gradient.len(),
                hessian.as_ref().map_or(0, |h| h.len())
            );
        }
        // With output parameters, which are inputs is known by the gradient's length only: one choice
        // of them must agree (two of the same length seldom both could). The gradient first, against
        // differences of the function's own value (an oracle that shares no code with the sweeps), then
        // the Hessian against differences of the gradient.
        let mut outcome = Err(String::new());
        for active in &candidates {
            outcome = compare_gradient(f, c, &src, seed, active, &base, gscale, close).and_then(|finite| {
                let Some(hessian) = &hessian else {
                    return Ok(finite);
                };
                let hessian = compare(f, c, &src, seed, active, hessian, gscale, base.single, close)?;
                Ok(finite && hessian)
            });
            if outcome.is_ok() {
                break;
            }
        }
        match outcome {
            Ok(true) => {}
            Ok(false) => continue,
            Err(why) => return why,
        }
        // Forward mode against reverse mode, where the check can make a tangent (`Ask::Tangent`).
        match quietly(|| f(c, &mut src.replay(), Ask::Tangent)) {
            Ok(t) if t.value.is_nan() => {}
            Ok(t) => {
                forward = true;
                let inner = t.gradient.first().copied().unwrap_or(f64::NAN);
                if !close(t.value, inner, gscale.max(t.value.abs()).max(inner.abs())) {
                    return format!(
                        "wrong f_jvp gives {:e} along a tangent where reverse mode (f_grad, or f_vjp through a cotangent) gives {inner:e} (point {seed}, {c:?}, x = {:?})",
                        t.value, src.values
                    );
                }
            }
            Err(m) => return format!("panic f_jvp panicked with {c:?}: {m}"),
        }
        let at = Point { f, c, src: &src, seed, base: &base, hessian: hessian.as_deref() };
        if let Err(why) = at.other_items(&mut seen) {
            return why;
        }
        checked += 1;
    }
    if checked == 0 {
        return format!("noinput no point of {c:?} gave finite differences");
    }
    let forward = if forward { ", f_jvp too" } else { "" };
    let mut others = String::new();
    for (name, yes) in [
        ("f_hvp", seen.hvp),
        ("f_grad_into", seen.into),
        ("f_derivatives", seen.derivatives),
        ("the third derivative", seen.third),
        ("f_jacobian", seen.jacobian),
    ] {
        if yes {
            others += &format!(", {name} too");
        }
    }
    format!("ok {checked} points{forward}{others}, {c:?}")
}

/// Which of the items beside `f_grad` and `f_hessian` a check could call (`Point::other_items`).
#[derive(Default)]
struct Seen {
    hvp: bool,
    into: bool,
    derivatives: bool,
    third: bool,
    jacobian: bool,
}

/// One point of a check whose gradient (and Hessian, for a twin) matched central differences: `base` is
/// `f_grad`'s answer there (`f_vjp`'s through the cotangent for a function of several results), `hessian`
/// `f_hessian`'s.
struct Point<'a> {
    f: Check,
    c: &'a Config,
    src: &'a Source,
    seed: u64,
    base: &'a Eval,
    hessian: Option<&'a [Vec<f64>]>,
}

impl Point<'_> {
    /// The generated items that must agree with `f_grad` and `f_hessian` to rounding (they are computed
    /// from the same derivative rules, in another order at most): `f_hvp` along the tangent with `f_hessian`
    /// times it, `f_derivatives` with the value, gradient and Hessian, `f_jacobian` seen through the
    /// cotangent with `f_vjp`'s gradient; and `f_grad_into`, which must write exactly `f_grad`'s floats
    /// into buffers filled with garbage (7.25, then NaN) before the call, bit for bit: it runs the same
    /// sweep as `f_grad` into the caller's buffers, so that any difference is a buffer not overwritten (a
    /// gradient added to what the buffer held, an element left out).
    fn other_items(&self, seen: &mut Seen) -> Result<(), String> {
        let Point { f, c, src, seed, base, hessian } = *self;
        let ask = |ask: Ask| match quietly(|| f(c, &mut src.replay(), ask)) {
            Ok(e) if e.value.is_nan() && e.gradient.is_empty() && e.hessian.is_none() => Ok(None),
            Ok(e) => Ok(Some(e)),
            Err(m) => Err(format!("panic {ask:?} panicked with {c:?}: {m}")),
        };
        let tol = if base.single { 1e-4 } else { 1e-9 };
        let near = |a: f64, b: f64, scale: f64| (a - b).abs() <= tol * scale.max(1.0) || a == b;
        let max = |v: &[f64]| v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        let gscale = max(&base.gradient).max(base.value.abs());
        let here = format!("point {seed}, {c:?}, x = {:?}", src.values);
        if let (Some(h), Some(p)) = (hessian, ask(Ask::Hvp)?) {
            seen.hvp = true;
            let n = base.gradient.len();
            if p.weights.len() != n || p.product.len() != n || p.gradient.len() != n {
                return Err(format!(
                    "wrong f_hvp's tangent, gradient and product have {}, {} and {} floats where f_grad's gradient has {n} ({here})",
                    p.weights.len(),
                    p.gradient.len(),
                    p.product.len()
                ));
            }
            if !near(p.value, base.value, gscale)
                || p.gradient.iter().zip(&base.gradient).any(|(a, b)| !near(*a, *b, gscale))
            {
                return Err(format!(
                    "wrong f_hvp's value and gradient {:e} {:?} differ from f_grad's {:e} {:?} ({here})",
                    p.value, p.gradient, base.value, base.gradient
                ));
            }
            let hv: Vec<f64> =
                h.iter().map(|row| row.iter().zip(&p.weights).map(|(a, w)| a * w).sum()).collect();
            let scale = max(&hv).max(max(&p.product)).max(max(&h.iter().flatten().copied().collect::<Vec<_>>()));
            if let Some(k) = (0..n).find(|&k| !near(p.product[k], hv[k], scale)) {
                return Err(format!(
                    "wrong f_hvp[{k}] = {:e} along the tangent {:?}, f_hessian times it gives {:e} ({here})",
                    p.product[k], p.weights, hv[k]
                ));
            }
        }
        for fill in [7.25, f64::NAN] {
            let Some(e) = ask(Ask::Into(fill))? else {
                break;
            };
            seen.into = true;
            let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
            if !same(e.value, base.value)
                || e.gradient.len() != base.gradient.len()
                || e.gradient.iter().zip(&base.gradient).any(|(a, b)| !same(*a, *b))
            {
                return Err(format!(
                    "wrong f_grad_into into buffers holding {fill} gives {:e} {:?} where f_grad gives {:e} {:?} ({here})",
                    e.value, e.gradient, base.value, base.gradient
                ));
            }
        }
        if let (Some(h), Some(d)) = (hessian, ask(Ask::Derivatives)?) {
            seen.derivatives = true;
            let (d1, d2) = (d.gradient[0], d.hessian.as_ref().map_or(f64::NAN, |h| h[0][0]));
            let ok = base.gradient.len() == 1
                && h.len() == 1
                && near(d.value, base.value, gscale)
                && near(d1, base.gradient[0], gscale)
                && near(d2, h[0][0], gscale.max(h[0][0].abs()));
            if !ok {
                return Err(format!(
                    "wrong f_derivatives gives f, f', f'' = {:e}, {d1:e}, {d2:e} where f_grad and f_hessian give {:e}, {:?}, {h:?} ({here})",
                    d.value, base.value, base.gradient
                ));
            }
            if let Some(&d3) = d.product.first() {
                if third(f, c, src, d2, d3, base.single, &here)? {
                    seen.third = true;
                }
            }
        }
        if hessian.is_none() {
            if let Some(j) = ask(Ask::Jacobian)? {
                seen.jacobian = true;
                let rows = j.hessian.unwrap_or_default();
                let n = base.gradient.len();
                if rows.len() != j.weights.len() || rows.iter().any(|r| r.len() != n) {
                    return Err(format!(
                        "wrong f_jacobian's shape: {} rows of {:?} floats, for a result of {} floats and {n} inputs ({here})",
                        rows.len(),
                        rows.iter().map(Vec::len).collect::<Vec<_>>(),
                        j.weights.len()
                    ));
                }
                let through: Vec<f64> =
                    (0..n).map(|k| rows.iter().zip(&j.weights).map(|(r, w)| r[k] * w).sum()).collect();
                let scale = max(&through).max(gscale).max(max(&rows.concat()));
                if let Some(k) = (0..n).find(|&k| !near(through[k], base.gradient[k], scale)) {
                    return Err(format!(
                        "wrong f_jacobian's column {k} through the cotangent {:?} gives {:e} where f_vjp gives {:e} ({here})",
                        j.weights, through[k], base.gradient[k]
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `f_grad`'s gradient `base` against central differences of the function's value over the inputs `active`
/// of the point `src`: `Ok(true)` if they agree, `Ok(false)` if the differences are not finite, else why not.
#[allow(clippy::too_many_arguments)]
fn compare_gradient(
    f: Check,
    c: &Config,
    src: &Source,
    seed: u64,
    active: &[usize],
    base: &Eval,
    gscale: f64,
    close: impl Fn(f64, f64, f64) -> bool,
) -> Result<bool, String> {
    let mut fd = Vec::with_capacity(active.len());
    for &i in active {
        let x = src.values[i];
        let step = if base.single { 1e-2 } else { 1e-5 } * x.abs().max(1.0);
        let at = |d: f64| {
            let mut s = src.replay();
            s.values[i] = x + d;
            quietly(|| f(c, &mut s, Ask::Value)).map(|e| e.value)
        };
        let (Ok(plus), Ok(minus)) = (at(step), at(-step)) else {
            return Err(format!("noinput f panicked next to the point ({c:?})"));
        };
        fd.push((plus - minus) / (2.0 * step));
    }
    if fd.iter().any(|v| !v.is_finite()) {
        return Ok(false);
    }
    let scale = fd.iter().fold(gscale, |s, v| s.max(v.abs()));
    for (k, (g, d)) in base.gradient.iter().zip(&fd).enumerate() {
        if !close(*g, *d, scale) {
            return Err(format!(
                "wrong f_grad[{k}] = {g:e}, central differences of f give {d:e} (point {seed}, {c:?}, x = {:?})",
                src.values
            ));
        }
    }
    Ok(true)
}

/// `f_derivatives`' third derivative `d3` (of `order = 3`, `--order3`) against central differences of its
/// second (`d2` at the point) along the one active float of `src`: `Ok(true)` if they agree, `Ok(false)` if
/// the differences are not finite or the active float is not known, else why not. The oracle is the second
/// derivative, which the census checks against differences of `f_grad`, and those against differences of
/// the value.
fn third(f: Check, c: &Config, src: &Source, d2: f64, d3: f64, single: bool, here: &str) -> Result<bool, String> {
    let Some(i) = src.gradient_inputs(1).first().and_then(|a| a.first().copied()) else {
        return Ok(false);
    };
    let x = src.values[i];
    let step = if single { 1e-2 } else { 1e-5 } * x.abs().max(1.0);
    let at = |d: f64| {
        let mut s = src.replay();
        s.values[i] = x + d;
        quietly(|| f(c, &mut s, Ask::Derivatives)).map(|e| e.hessian.map_or(f64::NAN, |h| h[0][0]))
    };
    let (Ok(plus), Ok(minus)) = (at(step), at(-step)) else {
        return Err(format!("panic f_derivatives panicked next to the point ({here})"));
    };
    let fd = (plus - minus) / (2.0 * step);
    if !fd.is_finite() {
        return Ok(false);
    }
    let tol = if single { 2e-2 } else { 1e-5 };
    let scale = d2.abs().max(d3.abs()).max(fd.abs()).max(1.0);
    if (d3 - fd).abs() <= tol * scale || d3 == fd {
        Ok(true)
    } else {
        Err(format!(
            "wrong f_derivatives' third derivative {d3:e}, central differences of its second give {fd:e} ({here})"
        ))
    }
}

/// `hessian` against central differences of `f_grad` over the inputs `active` of the point `src`: `Ok(true)`
/// if they agree, `Ok(false)` if the differences are not finite, else why not.
#[allow(clippy::too_many_arguments)]
fn compare(
    f: Check,
    c: &Config,
    src: &Source,
    seed: u64,
    active: &[usize],
    hessian: &[Vec<f64>],
    gscale: f64,
    single: bool,
    close: impl Fn(f64, f64, f64) -> bool,
) -> Result<bool, String> {
    let n = active.len();
    if hessian.len() != n || hessian.iter().any(|r| r.len() != n) {
        return Err(format!("wrong shape: {} inputs, a Hessian of {} rows", n, hessian.len()));
    }
    let mut fd = vec![vec![0.0; n]; n];
    for (col, &i) in active.iter().enumerate() {
        let x = src.values[i];
        let step = if single { 1e-2 } else { 1e-5 } * x.abs().max(1.0);
        let at = |d: f64| {
            let mut s = src.replay();
            s.values[i] = x + d;
            quietly(|| f(c, &mut s, Ask::Gradient)).map(|e| e.gradient)
        };
        let (Ok(plus), Ok(minus)) = (at(step), at(-step)) else {
            return Err(format!("noinput f_grad panicked next to the point ({c:?})"));
        };
        for row in 0..n {
            fd[row][col] = (plus[row] - minus[row]) / (2.0 * step);
        }
    }
    if fd.iter().flatten().any(|v| !v.is_finite()) {
        return Ok(false);
    }
    let scale = hessian.iter().flatten().chain(fd.iter().flatten()).fold(gscale, |s, v| s.max(v.abs()));
    for row in 0..n {
        for col in 0..n {
            if !close(hessian[row][col], fd[row][col], scale) {
                return Err(format!(
                    "wrong H[{row}][{col}] = {:e}, central differences of f_grad give {:e} (point {seed}, {c:?}, x = {:?})",
                    hessian[row][col], fd[row][col], src.values
                ));
            }
        }
    }
    Ok(true)
}

/// Runs the checks from index `start` on, one line each: `BEGIN k`, then `RESULT k <outcome>`.
pub fn run(checks: &[(usize, Check)], start: usize) {
    std::panic::set_hook(Box::new(|_| {}));
    for (k, (id, f)) in checks.iter().enumerate().skip(start) {
        println!("BEGIN {k} {id}");
        let outcome = check(*f);
        println!("RESULT {k} {id} {}", outcome.replace('\n', " "));
    }
    println!("DONE");
}
