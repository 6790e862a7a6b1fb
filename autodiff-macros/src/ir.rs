//! The intermediate form: a function body in which every value is named once.
//!
//! Lowering (`lower.rs`) turns the body into this form; the analyses and the emitters read it. Control flow
//! stays structured, as in JAX's `cond`: an `if` or `match` is one statement whose branches are blocks that
//! each end by yielding the values the statement defines (`outs`), so a variable that a branch assigns is a
//! fresh value after the statement. Each value keeps the span of the user's expression it came from.

use proc_macro2::{Span, TokenStream};

/// A value, named once. Indexes `Function::vars`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct Var(pub(crate) u32);

/// What the syntax tells of a value's type: enough to pick a zero, decide activity and reject misuse.
/// Equal kinds name the same types, wherever they are written (`syn`'s equality ignores spans).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A float; the type where the syntax says it (`f64`, `f32`, a type parameter `T: Float`).
    Float(Option<syn::Type>),
    Int,
    Bool,
    Unit,
    Tuple(Vec<Kind>),
    /// An array, slice or `Vec` of floats (never an SSA value: see `Array`).
    Array,
    /// Not settled by the syntax (a constant of another item, the result of an opaque call).
    Unknown,
    /// A parameter struct deriving `Differentiable` (or a field of one passed on whole), of this type: it
    /// is its own gradient type, and only ever passed to calls.
    Struct(syn::Type),
}

impl Kind {
    /// Can this kind carry a derivative?
    pub(crate) fn is_differentiable(&self) -> bool {
        !matches!(self, Kind::Int | Kind::Bool | Kind::Unit | Kind::Array)
    }

    /// The kind of a value computed from two others (`a + b`): a known float type wins.
    pub(crate) fn join(&self, other: &Kind) -> Kind {
        match (self, other) {
            (Kind::Struct(t), _) | (_, Kind::Struct(t)) => Kind::Struct(t.clone()),
            (Kind::Float(Some(t)), _) | (_, Kind::Float(Some(t))) => Kind::Float(Some(t.clone())),
            (Kind::Float(None), _) | (_, Kind::Float(None)) => Kind::Float(None),
            (Kind::Unknown, k) | (k, Kind::Unknown) => k.clone(),
            (Kind::Tuple(a), Kind::Tuple(b)) if a.len() == b.len() => {
                Kind::Tuple(a.iter().zip(b).map(|(a, b)| a.join(b)).collect())
            }
            (a, _) => a.clone(),
        }
    }
}

/// A use of a value: a named one, or a constant written in place (a literal, `std::f64::consts::PI`).
// A macro invocation holds a few hundred operands at most: boxing the constant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub(crate) enum Operand {
    Var(Var),
    Const {
        tokens: TokenStream,
        kind: Kind,
    },
    /// An array as a whole: the returned value of a function returning `Vec<T>` or `[T; N]`.
    Array(Array),
}

impl Operand {
    pub(crate) fn var(&self) -> Option<Var> {
        match self {
            Operand::Var(v) => Some(*v),
            Operand::Const { .. } | Operand::Array(_) => None,
        }
    }

    pub(crate) fn unit() -> Operand {
        Operand::Const {
            tokens: quote::quote!(()),
            kind: Kind::Unit,
        }
    }

    /// Do two operands certainly denote the same value?
    pub(crate) fn same_as(&self, other: &Operand) -> bool {
        match (self, other) {
            (Operand::Var(a), Operand::Var(b)) => a == b,
            (Operand::Array(a), Operand::Array(b)) => a == b,
            (Operand::Const { tokens: a, .. }, Operand::Const { tokens: b, .. }) => {
                a.to_string() == b.to_string()
            }
            _ => false,
        }
    }
}

/// The float functions that have a derivative rule (`rules.rs`), by their method name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FloatFn {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Exp,
    Exp2,
    ExpM1,
    Ln,
    Log,
    Log2,
    Log10,
    Ln1p,
    Powi,
    Powf,
    Sqrt,
    Cbrt,
    Abs,
    Copysign,
    Hypot,
    Atan2,
    MulAdd,
    Recip,
    Max,
    Min,
    Clamp,
    Signum,
    Floor,
    Ceil,
    Round,
    Trunc,
    ToDegrees,
    ToRadians,
    /// `x.rem_euclid(y)`: slope 1 in `x`, `-x.div_euclid(y)` in `y`.
    RemEuclid,
    /// `x.div_euclid(y)`: piecewise constant.
    DivEuclid,
    /// `x as f32` in the generic copy of an `f64` function (`__private::round_f32`): the value rounded, the
    /// derivative taken as 1.
    RoundF32,
}

impl FloatFn {
    /// Every float function, with its method name and its number of arguments, receiver included.
    pub(crate) const ALL: &'static [(&'static str, FloatFn, usize)] = &[
        ("sin", FloatFn::Sin, 1),
        ("cos", FloatFn::Cos, 1),
        ("tan", FloatFn::Tan, 1),
        ("asin", FloatFn::Asin, 1),
        ("acos", FloatFn::Acos, 1),
        ("atan", FloatFn::Atan, 1),
        ("sinh", FloatFn::Sinh, 1),
        ("cosh", FloatFn::Cosh, 1),
        ("tanh", FloatFn::Tanh, 1),
        ("asinh", FloatFn::Asinh, 1),
        ("acosh", FloatFn::Acosh, 1),
        ("atanh", FloatFn::Atanh, 1),
        ("exp", FloatFn::Exp, 1),
        ("exp2", FloatFn::Exp2, 1),
        ("exp_m1", FloatFn::ExpM1, 1),
        ("ln", FloatFn::Ln, 1),
        ("log", FloatFn::Log, 2),
        ("log2", FloatFn::Log2, 1),
        ("log10", FloatFn::Log10, 1),
        ("ln_1p", FloatFn::Ln1p, 1),
        ("powi", FloatFn::Powi, 2),
        ("powf", FloatFn::Powf, 2),
        ("sqrt", FloatFn::Sqrt, 1),
        ("cbrt", FloatFn::Cbrt, 1),
        ("abs", FloatFn::Abs, 1),
        ("copysign", FloatFn::Copysign, 2),
        ("hypot", FloatFn::Hypot, 2),
        ("atan2", FloatFn::Atan2, 2),
        ("mul_add", FloatFn::MulAdd, 3),
        ("recip", FloatFn::Recip, 1),
        ("max", FloatFn::Max, 2),
        ("min", FloatFn::Min, 2),
        ("clamp", FloatFn::Clamp, 3),
        ("signum", FloatFn::Signum, 1),
        ("floor", FloatFn::Floor, 1),
        ("ceil", FloatFn::Ceil, 1),
        ("round", FloatFn::Round, 1),
        ("trunc", FloatFn::Trunc, 1),
        ("to_degrees", FloatFn::ToDegrees, 1),
        ("to_radians", FloatFn::ToRadians, 1),
        ("rem_euclid", FloatFn::RemEuclid, 2),
        ("div_euclid", FloatFn::DivEuclid, 2),
        ("round_f32", FloatFn::RoundF32, 1),
    ];

    /// The function of this method name taking `arity` arguments (receiver included).
    pub(crate) fn from_name(name: &str, arity: usize) -> Option<FloatFn> {
        FloatFn::ALL
            .iter()
            .find(|(n, _, a)| *n == name && *a == arity)
            .map(|(_, f, _)| *f)
    }

    /// Is the derivative zero everywhere it exists (so the result is a constant for AD)?
    pub(crate) fn is_piecewise_constant(self) -> bool {
        matches!(
            self,
            FloatFn::Signum
                | FloatFn::Floor
                | FloatFn::Ceil
                | FloatFn::Round
                | FloatFn::Trunc
                | FloatFn::DivEuclid
        )
    }

    /// Which arguments are floats that carry a derivative (`powi`'s exponent is an integer).
    pub(crate) fn float_args(self, arity: usize) -> Vec<bool> {
        (0..arity)
            .map(|i| !(self == FloatFn::Powi && i == 1))
            .collect()
    }
}

/// How the user wrote a call, so the primal is emitted the same way: `x.sin()` or `f64::sin(x)`.
#[derive(Clone, Debug)]
pub(crate) enum CallForm {
    Method(syn::Ident),
    Path(TokenStream),
}

/// The right-hand side of a `let`.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    /// `-x`, `!b`, `*r`.
    Unary(syn::UnOp, Operand),
    /// Arithmetic, comparison and bit operators (never `&&`/`||`, which lower to `if`).
    Binary(syn::BinOp, Operand, Operand),
    /// `x as T`.
    Cast(Operand, syn::Type),
    Tuple(Vec<Operand>),
    /// `t.0`.
    Field(Operand, u32),
    /// A float function with a derivative rule; the arguments start with the receiver.
    Float {
        func: FloatFn,
        form: CallForm,
        args: Vec<Operand>,
    },
    /// A method with no derivative rule: fine on inactive values, an error on active ones.
    Method {
        receiver: Operand,
        method: syn::Ident,
        turbofish: Option<TokenStream>,
        args: Vec<Operand>,
    },
    /// A call of a function by its path: differentiated through the callee's companion module
    /// (`f::vjp`, `f::jvp`) when an argument is active. `by_ref[i]`: the argument is written `&a`.
    Call {
        callee: syn::ExprPath,
        args: Vec<Operand>,
        by_ref: Vec<bool>,
    },
    /// `stop_gradient(x)`: the value of `x`, held constant.
    StopGradient {
        callee: TokenStream,
        arg: Operand,
    },
    /// `a[i]`.
    Load {
        array: Array,
        index: Operand,
        /// For an element `m[row][column]` of a matrix held flat (`lower/matrices.rs`, where `index` is
        /// `offsets[row] + column`): the row and column, by which a matrix read in place reads it
        /// (`matrix_reads.rs`).
        at: Option<Box<At>>,
    },
    /// `a.len()`.
    Len(Array),
    /// `m[row].len()` of a matrix read in place: made only on the copy of the function that a sweep
    /// reading it in place runs on (`matrix_reads.rs`), from the difference of its row offsets.
    RowLen {
        matrix: Array,
        row: Operand,
    },
}

/// Where a load of a matrix's flat array reads: `m[row][column]`.
#[derive(Clone, Debug)]
pub(crate) struct At {
    pub(crate) row: Operand,
    pub(crate) column: Operand,
    /// The matrix is read in place in this sweep (`matrix_reads::read_in_place`): the load is
    /// `__matrix_m[row][column]`, and reads the row and column, not `index` (no longer defined).
    pub(crate) in_place: bool,
}

impl At {
    /// Is this the element of a matrix read in place?
    pub(crate) fn is_in_place(at: &Option<Box<At>>) -> bool {
        at.as_ref().is_some_and(|at| at.in_place)
    }
}

/// One arm of a `match`: its pattern (which binds nothing) and its block.
#[derive(Clone, Debug)]
pub(crate) struct Arm {
    pub(crate) pat: syn::Pat,
    pub(crate) block: Block,
}

#[derive(Clone, Debug)]
pub(crate) enum Stmt {
    Let {
        var: Var,
        value: Value,
    },
    /// Both blocks yield one operand per out.
    If {
        cond: Operand,
        then_block: Block,
        else_block: Block,
        outs: Vec<Var>,
    },
    /// Every arm's block yields one operand per out. The scrutinee is never active.
    Match {
        scrutinee: Operand,
        /// The span of the scrutinee expression, for errors.
        span: Span,
        arms: Vec<Arm>,
        outs: Vec<Var>,
    },
    /// `a[i] = value`: arrays are memory, written in place, not values named once.
    Store {
        array: Array,
        index: Operand,
        value: Operand,
    },
    /// `a.push(value)`, which writes index `index` (the length before the push).
    Push {
        array: Array,
        index: Var,
        value: Operand,
    },
    /// `a.truncate(len)`: what `a.pop()` leaves, after the element `a[len]` was read (`len` is the
    /// length less one). A later push writes that slot again.
    Truncate {
        array: Array,
        len: Operand,
    },
    /// `let a = vec![..]`, `[..; N]`, `Vec::with_capacity(n)`, `x.to_vec()`.
    NewArray {
        array: Array,
        init: ArrayInit,
    },
    Loop(Box<Loop>),
    /// `g(&x, &mut out)`: a call of a function with output parameters, which writes the arrays passed
    /// `&mut` (`written[i]`: how argument `i` is). `var` is the call's value (`()` for most such functions).
    CallOut {
        var: Var,
        callee: syn::ExprPath,
        args: Vec<Operand>,
        by_ref: Vec<bool>,
        written: Vec<Written>,
        /// An output parameter of this function is passed on bare (`total(out)`), which the callee may
        /// write or only read: the call goes through its companion's `vjp_out` and `jvp_out`.
        passed_on: bool,
    },
}

/// How an argument of a call is passed `&mut`.
#[allow(clippy::large_enum_variant)] // as `Operand`: few and short-lived
#[derive(Clone, Debug)]
pub(crate) enum Written {
    /// Not: by value or `&`.
    No,
    /// A whole array (`&mut k`), which the callee takes as `&mut [T]`.
    Array,
    /// One element of the array (`&mut a[i]`; a float local `&mut s` is held in an array of one element),
    /// which the callee takes as `&mut T`.
    Element(Operand),
    /// A window of the array, `start..end` (`&mut k[a..b]`, `&mut k[a..]`, a matrix's row `&mut m[i]`), which
    /// the callee takes as `&mut [T]`; the rest of the array keeps its values.
    Window { start: Operand, end: Operand },
}

impl Written {
    pub(crate) fn is_written(&self) -> bool {
        !matches!(self, Written::No)
    }
}

/// How a local array starts.
#[allow(clippy::large_enum_variant)] // as `Operand`: few and short-lived
#[derive(Clone, Debug)]
pub(crate) enum ArrayInit {
    /// `vec![value; len]` or `[value; len]`.
    Repeat {
        value: Operand,
        len: Operand,
        fixed: bool,
    },
    /// `vec![a, b, c]` or `[a, b, c]`.
    Elements { items: Vec<Operand>, fixed: bool },
    /// `Vec::with_capacity(n)` or `Vec::new()`: empty, filled by `push`.
    Empty { capacity: Option<Operand> },
    /// `x.to_vec()`, `x.clone()`, or a copy of a fixed-size array.
    Copy(Array),
    /// `&x[a..b]`, `&x[a..]`, `&x[..b]`: a copy of a window of another array, whose adjoint flows back into
    /// that window of the other's.
    Window {
        source: Array,
        range: Window,
        /// For a row `&m[i]` of a matrix (two levels, held flat): `i`. Where the matrix is read in place
        /// rather than flattened (`views::in_place_matrices`), the row is `&__matrix_m[i][..]`.
        row: Option<Box<Operand>>,
    },
    /// `let v: Vec<T> = f(..)`: the result of a call.
    Call {
        callee: syn::ExprPath,
        args: Vec<Operand>,
        by_ref: Vec<bool>,
    },
}

/// The bounds of a sub-slice `a..b`, `a..`, `..b`, `a..=b` or `..`.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    pub(crate) start: Option<Operand>,
    pub(crate) end: Option<Operand>,
    pub(crate) inclusive: bool,
}

/// What a `for` loop iterates: a range of integers, `start..end` or `start..=end`, maybe reversed and
/// stepped. Iteration over slices is lowered to a range over indexes.
#[derive(Clone, Debug)]
pub(crate) struct Range {
    pub(crate) start: Operand,
    pub(crate) end: Operand,
    pub(crate) inclusive: bool,
    pub(crate) rev: bool,
    pub(crate) step: Option<Operand>,
}

/// A loop in the structured form every Rust loop is lowered to. The carried values are the variables the
/// body assigns: `phis` are their values at the start of an iteration (first `inits`), the body yields
/// their next values, `outs` are their values after the loop. A `break` or `return` sets a carried flag,
/// so the body is one block with no early exit.
#[derive(Clone, Debug)]
pub(crate) struct Loop {
    /// `for` over a range (with its index value), or `None` for `while` and `loop`.
    pub(crate) range: Option<(Range, Var)>,
    /// `while`: the condition, evaluated at the start of each iteration, yields one bool.
    pub(crate) cond: Option<Block>,
    pub(crate) phis: Vec<Var>,
    pub(crate) inits: Vec<Operand>,
    pub(crate) body: Block,
    pub(crate) outs: Vec<Var>,
    /// The carried flag that ends the loop after the iteration that set it (`break`, `return`).
    pub(crate) exit_flag: Option<usize>,
    /// The number of iterations run.
    pub(crate) trips: Var,
}

impl Stmt {
    /// The values this statement defines.
    pub(crate) fn defs(&self) -> Vec<Var> {
        match self {
            Stmt::Let { var, .. } | Stmt::CallOut { var, .. } => vec![*var],
            Stmt::If { outs, .. } | Stmt::Match { outs, .. } => outs.clone(),
            Stmt::Push { index, .. } => vec![*index],
            Stmt::Store { .. } | Stmt::NewArray { .. } | Stmt::Truncate { .. } => Vec::new(),
            Stmt::Loop(l) => l.outs.iter().copied().chain([l.trips]).collect(),
        }
    }

    /// The operands this statement reads directly (not those of its nested blocks).
    pub(crate) fn operands(&self) -> Vec<&Operand> {
        match self {
            Stmt::Let { value, .. } => value.operands(),
            Stmt::If { cond, .. } => vec![cond],
            Stmt::Match { scrutinee, .. } => vec![scrutinee],
            Stmt::Store { index, value, .. } => vec![index, value],
            Stmt::Push { value, .. } => vec![value],
            Stmt::Truncate { len, .. } => vec![len],
            Stmt::CallOut { args, written, .. } => args
                .iter()
                .chain(written.iter().flat_map(|w| match w {
                    Written::Element(index) => vec![index],
                    Written::Window { start, end } => vec![start, end],
                    Written::No | Written::Array => Vec::new(),
                }))
                .collect(),
            Stmt::NewArray { init, .. } => match init {
                ArrayInit::Repeat { value, len, .. } => vec![value, len],
                ArrayInit::Elements { items, .. } => items.iter().collect(),
                ArrayInit::Empty { capacity } => capacity.iter().collect(),
                ArrayInit::Copy(_) => Vec::new(),
                ArrayInit::Window { range, row, .. } => (range.start.iter())
                    .chain(range.end.iter())
                    .chain(row.as_deref())
                    .collect(),
                ArrayInit::Call { args, .. } => args.iter().collect(),
            },
            Stmt::Loop(l) => {
                let mut operands: Vec<&Operand> = l.inits.iter().collect();
                if let Some((range, _)) = &l.range {
                    operands.extend([&range.start, &range.end]);
                    operands.extend(range.step.iter());
                }
                operands
            }
        }
    }

    /// Does this statement write memory (so it is never dropped, and never recomputed)?
    pub(crate) fn has_effects(&self) -> bool {
        match self {
            Stmt::Store { .. }
            | Stmt::Push { .. }
            | Stmt::Truncate { .. }
            | Stmt::NewArray { .. }
            | Stmt::Loop(_)
            | Stmt::CallOut { .. } => true,
            _ => self
                .blocks()
                .iter()
                .any(|b| b.stmts.iter().any(Stmt::has_effects)),
        }
    }

    /// The blocks nested in this statement, to change ([`Stmt::blocks`]).
    pub(crate) fn blocks_mut(&mut self) -> Vec<&mut Block> {
        match self {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => vec![then_block, else_block],
            Stmt::Match { arms, .. } => arms.iter_mut().map(|arm| &mut arm.block).collect(),
            Stmt::Loop(l) => {
                let l = &mut **l;
                l.cond.iter_mut().chain([&mut l.body]).collect()
            }
            Stmt::Let { .. }
            | Stmt::Store { .. }
            | Stmt::Push { .. }
            | Stmt::Truncate { .. }
            | Stmt::NewArray { .. }
            | Stmt::CallOut { .. } => Vec::new(),
        }
    }

    /// The blocks nested in this statement.
    pub(crate) fn blocks(&self) -> Vec<&Block> {
        match self {
            Stmt::Let { .. } => Vec::new(),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => vec![then_block, else_block],
            Stmt::Match { arms, .. } => arms.iter().map(|arm| &arm.block).collect(),
            Stmt::Loop(l) => l.cond.iter().chain([&l.body]).collect(),
            Stmt::Store { .. }
            | Stmt::Push { .. }
            | Stmt::Truncate { .. }
            | Stmt::NewArray { .. }
            | Stmt::CallOut { .. } => Vec::new(),
        }
    }

    /// The arrays a call with output parameters writes.
    pub(crate) fn written_arrays(&self) -> Vec<Array> {
        match self {
            Stmt::CallOut { args, written, .. } => args
                .iter()
                .zip(written)
                .filter_map(|(a, w)| match a {
                    Operand::Array(array) if w.is_written() => Some(*array),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A sequence of statements that ends by yielding operands: the values of an `if` branch, or, for the
/// function body, the one returned value.
#[derive(Clone, Debug, Default)]
pub(crate) struct Block {
    pub(crate) stmts: Vec<Stmt>,
    pub(crate) yields: Vec<Operand>,
}

impl Block {
    /// The values defined directly in this block (not inside its nested blocks).
    pub(crate) fn defs(&self) -> Vec<Var> {
        self.stmts.iter().flat_map(Stmt::defs).collect()
    }
}

impl Value {
    /// The operands this value reads.
    pub(crate) fn operands(&self) -> Vec<&Operand> {
        match self {
            Value::Unary(_, a) | Value::Cast(a, _) | Value::Field(a, _) => vec![a],
            Value::StopGradient { arg, .. } => vec![arg],
            Value::Binary(_, a, b) => vec![a, b],
            Value::Tuple(items) => items.iter().collect(),
            Value::Float { args, .. } | Value::Call { args, .. } => args.iter().collect(),
            Value::Method { receiver, args, .. } => std::iter::once(receiver).chain(args).collect(),
            Value::Load { at: Some(at), .. } if at.in_place => vec![&at.row, &at.column],
            Value::Load { index, .. } => vec![index],
            Value::RowLen { row, .. } => vec![row],
            Value::Len(_) => Vec::new(),
        }
    }
}

/// An array: a parameter (`&[T]`, `Vec<T>`, `[T; N]`) or a local `Vec`/array, identified by index into
/// `Function::arrays`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct Array(pub(crate) u32);

/// A call of another function, by what it defines: a value (`let y = f(&z)`) or an array
/// (`let v: Vec<T> = f(&z)`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) enum CallSite {
    Value(Var),
    Array(Array),
}

/// The shape a sub-slice stands for, which a call takes it in (`Emitter::call_arg`, `Forward::call_tangents`).
#[derive(Clone, Debug)]
pub(crate) enum HeldAs {
    /// A row of a matrix whose rows are arrays `[T; N]` (`pos[i]` of `pos: &[[f64; 3]]`, of a local
    /// `[[0.0; 3]; n]`), held as a sub-slice of the flat matrix: its `N`. A call gets the row as the
    /// `&[T; N]` the matrix holds (`__private::fixed_row`), which coerces to a callee's `&[T]` too, or, by
    /// value (`norm(pos[i])`), a copy of it.
    Row(proc_macro2::TokenStream),
    /// The part of a parameter struct's values view that holds an array field (`struct_whole.rs`:
    /// `::autodiff::__private::field_window::<S, KEY, _>(&values[a..b])`): that function. A call takes the
    /// window by reference through it, in the field's shape (`&[T; N]` for a `[f64; N]` field, `&[T]` for a
    /// `Vec`).
    Field(syn::ExprPath),
}

impl HeldAs {
    // Input:  &pos_row[..]
    // Output: ::autodiff::__private::fixed_row::<_, 3>(&pos_row[..])
    /// The reference in the held shape of the sub-slice `slice` (a `&[T]`).
    pub(crate) fn view(&self, slice: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
        match self {
            HeldAs::Row(n) => quote::quote!(::autodiff::__private::fixed_row::<_, #n>(#slice)),
            HeldAs::Field(path) => quote::quote!(#path(#slice)),
        }
    }
}

/// What is known of one array.
#[derive(Clone, Debug)]
pub(crate) struct ArrayInfo {
    pub(crate) name: String,
    /// The parameter it is, if it is one.
    pub(crate) param: Option<usize>,
    /// A fixed-size array `[T; N]` (its adjoint is an array too) rather than a slice or `Vec`.
    pub(crate) fixed: bool,
    /// The type the user's `let` declares for a local array (`let z: Vec<f64> = ..`), which the generated
    /// `let` repeats.
    pub(crate) declared: Option<syn::Type>,
    /// For a local `Vec` made by a call or a copy, its length right after it is made: the reverse of a
    /// branch or loop body that makes it sizes the array's adjoint buffer by this value.
    pub(crate) length: Option<Var>,
    /// For a fixed-size array, its length `N` where the syntax tells it (`[x; 3]`, `[a, b]`, a copy of one,
    /// a parameter or a `let` declared `[T; N]`): the reverse of a branch or loop body that makes it by a
    /// copy or a call sizes the array's adjoint buffer `[0.0; N]`.
    pub(crate) fixed_len: Option<proc_macro2::TokenStream>,
    /// For an array held as a sub-slice of something that holds it in a shape of its own (a row `[T; N]` of
    /// a matrix, an array field in a parameter struct's values view): how a call gets it in that shape.
    pub(crate) held_as: Option<HeldAs>,
    /// An output parameter (`&mut [T]`): a parameter the body may write.
    pub(crate) output: bool,
    /// A float output parameter (`&mut T`), held as a slice of one element (`*y` is `y[0]`).
    pub(crate) scalar: bool,
    /// The input of a parameter struct's field (`p.c` of `p.c[i]`), which the generated bodies hold as a
    /// reference to the field (`structs.rs`), a `[T; N]` as well as a `Vec`.
    pub(crate) field: bool,
    /// For a matrix (held flat, row-major), how a call that takes it whole gets it back in its shape.
    pub(crate) matrix: Option<MatrixShape>,
    /// A call's result bound without a type (`let c = g(x);`), or a copy of one: a `Vec` or a `[T; N]`,
    /// which the macro cannot tell. `let d = c;` copies it (`c.clone()`: a `[T; N]` is `Copy`, and `c` may be
    /// read after `d` is written).
    pub(crate) untyped: bool,
    /// Where the body makes it (`Vec::new()`, or the `.collect()` of a chain), for an error about it that
    /// only the reverse sweep finds; the call site where the syntax gives none.
    pub(crate) made_at: proc_macro2::Span,
    /// Where the body first pushes to it or pops from it, for the same.
    pub(crate) resized_at: Option<proc_macro2::Span>,
}

/// How a matrix, held flat, is passed whole to a call (`total(&m)`).
#[derive(Clone, Debug)]
pub(crate) struct MatrixShape {
    /// For a matrix parameter, the parameter as the generated code keeps it (`naming::matrix`), passed
    /// as it is (`&*m` for a reference, `&m` for an owned matrix: `by_ref`).
    pub(crate) original: Option<(proc_macro2::Ident, bool)>,
    /// Its row offsets, an expression of parameters and constants only (so it may be evaluated anywhere
    /// in the generated code), or `None` where the shape depends on values computed in the body.
    pub(crate) offsets: Option<TokenStream>,
    /// For a copy of a matrix parameter (`mut m` written in the body, `let mut c = m.clone()`): the
    /// parameter, whose type the copy has when passed whole (`unflatten_like`: a `[[f64; C]; R]` stays one).
    pub(crate) like: Option<proc_macro2::Ident>,
    /// A parameter's nested array (`[[T; C]; R]`, `&[[T; C]; R]`) or a copy of one: a `Copy` type, so
    /// `let d = c;` copies it (where a `Vec` of `Vec`s moves).
    pub(crate) copied_by_let: bool,
    /// For a nested array made in the body (`[[a, b], [c, d]]`, `[[v; C]; R]`), its numbers of rows and
    /// columns, constant expressions: passed whole, it is a `[[T; C]; R]` again
    /// (`__private::unflatten_fixed`).
    pub(crate) fixed: Option<(TokenStream, TokenStream)>,
    /// For a matrix field's part of a values view in a `__g_pairs` (`matrix_window(shape, &values[..])`,
    /// `struct_whole::pairs`): the parameter holding its shape, a matrix of its own type; passed whole, it
    /// is `matrix_window(shape, &flat[..])` again.
    pub(crate) shaped_by: Option<proc_macro2::Ident>,
    /// For a matrix made in the body whose shape is computed there (`vec![vec![0.0; n + 1]; k * 2]`): the
    /// array of its row offsets, made beside it (`uniform_row_offsets(rows, cols)`), which stands where
    /// the matrix does; passed whole, it is `unflatten(&flat[..], &rows)`.
    pub(crate) rows: Option<Array>,
}

/// What is known of one value.
#[derive(Clone, Debug)]
pub(crate) struct VarInfo {
    /// The user's name for it, if it has one; generated names derive from it.
    pub(crate) hint: Option<String>,
    /// For a value destructured by a tuple pattern: the number of its fields (a call's result is
    /// otherwise of unknown shape).
    pub(crate) tuple_arity: Option<usize>,
    /// The span of the user's code it comes from, for errors.
    pub(crate) span: Span,
    /// The type the user's `let` declares for it (`let s: f64 = a * b;`), which the generated `let`
    /// repeats: without it, a value of float literals alone has no type rustc can settle.
    pub(crate) declared: Option<syn::Type>,
    /// For the result of a call through a parameter or local (a function pointer), that variable's name:
    /// such a call has no derivative, which is an error where an argument is active.
    pub(crate) called_variable: Option<String>,
    /// A parameter the body passes to calls as the callee takes it, `Receiver::receive(p)` (the constant
    /// `self` of a method's hidden function, `struct_higher::SelfAsPrimal`): the emitters write it so.
    pub(crate) received: bool,
}

/// A lowered function body.
#[derive(Clone, Debug)]
pub(crate) struct Function {
    pub(crate) vars: Vec<VarInfo>,
    pub(crate) arrays: Vec<ArrayInfo>,
    /// One value per parameter, in declaration order.
    pub(crate) params: Vec<Var>,
    /// Yields exactly one operand: the returned value.
    pub(crate) body: Block,
    /// `const` items of the body, copied into every generated function.
    pub(crate) items: Vec<syn::Item>,
}

impl Function {
    pub(crate) fn returned(&self) -> &Operand {
        &self.body.yields[0]
    }

    /// Every statement, nested ones included, in program order.
    pub(crate) fn all_stmts(&self) -> Vec<&Stmt> {
        fn walk<'s>(block: &'s Block, out: &mut Vec<&'s Stmt>) {
            for stmt in &block.stmts {
                out.push(stmt);
                for inner in stmt.blocks() {
                    walk(inner, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// The variables bound to the result of a call (`let v = g(..)`), nested statements included.
    pub(crate) fn call_results(&self) -> std::collections::BTreeSet<Var> {
        self.all_stmts()
            .into_iter()
            .filter_map(|stmt| match stmt {
                Stmt::Let {
                    var,
                    value: Value::Call { .. },
                } => Some(*var),
                _ => None,
            })
            .collect()
    }
}

/// Is `op` a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`), whose result is a flag?
pub(crate) fn is_comparison(op: &syn::BinOp) -> bool {
    use syn::BinOp;
    matches!(
        op,
        BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_)
    )
}
