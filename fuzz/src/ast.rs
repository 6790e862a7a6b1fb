//! The small AST of generated programs. It is printed to Rust source by `print`, and the shrinker edits it.

/// A float method (or method-like function) applied to a receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `e.sin()`
    Sin,
    /// `e.cos()`
    Cos,
    /// `e.tanh()`
    Tanh,
    /// `e.exp()`: the generator only applies it to bounded arguments.
    Exp,
    /// `e.ln()`: the generator only applies it to positive arguments.
    Ln,
    /// `e.sqrt()`: the generator only applies it to positive arguments.
    Sqrt,
    /// `e.atan()`
    Atan,
    /// `e.powi(k)`
    Powi(i32),
    /// `e.abs()`: a kink at 0, where the generator's random points do not fall.
    Abs,
    /// `e.exp_m1()`: the generator only applies it to bounded arguments.
    ExpM1,
    /// `e.ln_1p()`: the generator only applies it to non-negative arguments.
    Ln1p,
    /// `e.cbrt()`: the generator only applies it to positive arguments.
    Cbrt,
    /// `e.recip()`: the generator only applies it to positive arguments.
    Recip,
    /// `e.asinh()`
    Asinh,
    /// `e.sinh()`: the generator only applies it to bounded arguments.
    Sinh,
}

/// A float method of two or three operands, `a.max(b)`, `a.mul_add(b, c)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method2 {
    /// `a.max(b)`: at a tie the generator's random points do not fall (`a.max(a)` aside, which is `a`).
    Max,
    /// `a.min(b)`
    Min,
    /// `a.hypot(b)`: the generator keeps `b` positive (away from the origin).
    Hypot,
    /// `a.atan2(b)`: the generator keeps `b` positive.
    Atan2,
    /// `a.powf(b)`: the generator keeps `a` positive and `b` bounded.
    Powf,
    /// `a.mul_add(b, c)`
    MulAdd,
    /// `a.copysign(b)` (`--sugar`): a kink at `a = 0` and a jump at `b = 0`, where the random points do
    /// not fall.
    Copysign,
    /// `a.clamp(lo, hi)` (`--sugar`): the generator writes `lo <= hi` (literals, or `b` and `b + k`).
    Clamp,
}

/// A binary float operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (the generator keeps divisors away from zero)
    Div,
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
}

/// An integer (`usize`) expression: loop counters, indexes, lengths.
#[derive(Clone, Debug, PartialEq)]
pub enum IExpr {
    /// A `usize` variable.
    Var(String),
    /// An integer literal.
    Lit(usize),
    /// `a.len()`
    Len(String),
    /// `a + b`
    Add(Box<IExpr>, Box<IExpr>),
    /// `a - b` (never underflows by construction)
    Sub(Box<IExpr>, Box<IExpr>),
    /// `a % k`
    Rem(Box<IExpr>, usize),
}

/// A condition of an `if`, a `while` or a `break`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// A comparison of two float expressions.
    Float(CmpOp, Expr, Expr),
    /// A comparison of two integer expressions.
    Int(CmpOp, IExpr, IExpr),
}

/// An argument of a call to another generated function.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A float expression.
    Float(Expr),
    /// A slice parameter passed on (`x`).
    SliceParam(String),
    /// A local `Vec` or array passed by reference (`&a`).
    LocalArray(String),
    /// A local `Vec` or array passed as an output buffer (`&mut a`, `--forms`).
    OutArray(String),
    /// A mutable float (a local, or the function's own float output `(*e)`) passed as a float output
    /// (`&mut t`, `--forms`).
    OutFloat(String),
    /// An element of a local array passed as a float output (`&mut a[i]`, `--forms`).
    OutElement(String, IExpr),
    /// A tuple of two floats for a `(f64, f64)` parameter (`--forms`): `(a, b)`; where set, for a
    /// `(f64, [f64; 1])` parameter: `(a, [b])`.
    Pair(Expr, Expr, bool),
    /// A matrix passed to a matrix parameter (`--forms`): the variable and what is written before it, `&`
    /// (`&m` of a local `Vec<Vec<f64>>` or nested array), `*` (a `&[[f64; C]; R]` passed on by value) or
    /// nothing (a parameter of the callee's type).
    Matrix(String, &'static str),
    /// A row of a matrix passed as a slice (`--forms`): `&m[i]`.
    MatrixRow(String, IExpr),
    /// A sub-slice of a longer slice parameter or local array passed as a slice (`--forms`):
    /// `&a[start..end]`, or `&a[start..]` where `end` is `None` (it ends with the array).
    SubSlice(String, usize, Option<usize>),
}

/// A pattern of an integer `match` arm.
#[derive(Clone, Debug, PartialEq)]
pub enum Pat {
    /// `k`
    Lit(usize),
    /// `a | b`
    Or(usize, usize),
    /// `a..=b`
    Range(usize, usize),
    /// `_`
    Wild,
    /// `name`, a binding of the scrutinee (`--sugar`): a fresh lowercase or capitalised name, or the name of
    /// a local or parameter outside, which the binding shadows in its arm.
    Bind(String),
    /// `pat if cond` (`--sugar`).
    Guard(Box<Pat>, Box<Cond>),
}

impl Pat {
    /// The name this pattern binds, if any.
    pub fn binding(&self) -> Option<&str> {
        match self {
            Pat::Bind(n) => Some(n),
            Pat::Guard(p, _) => p.binding(),
            _ => None,
        }
    }
}

/// The pattern of an iterator-chain `for` loop (`--sugar`).
#[derive(Clone, Debug, PartialEq)]
pub enum LoopPat {
    /// A `usize` from a range or `.enumerate()`.
    Int(String),
    /// `&v`, a float element of a slice or array.
    Float(String),
    /// `(a, b)`, from `.enumerate()` or `.zip(..)`.
    Pair(Box<LoopPat>, Box<LoopPat>),
}

/// Where an iterator chain starts (`--sugar`).
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// `(lo..hi)`, or `(lo..=hi)` when set.
    Range(IExpr, IExpr, bool),
    /// `a.iter()` of a slice parameter or local array.
    Iter(String),
}

/// An adapter of an iterator chain (`--sugar`).
#[derive(Clone, Debug, PartialEq)]
pub enum Adapter {
    /// `.rev()`
    Rev,
    /// `.step_by(k)`
    StepBy(usize),
    /// `.enumerate()`
    Enumerate,
    /// `.zip(chain)`
    Zip(Box<Chain>),
}

/// An iterator chain: a source and its adapters (`--sugar`).
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The start.
    pub source: Source,
    /// The adapters, in order.
    pub adapters: Vec<Adapter>,
}

/// The left side of a destructuring assignment (`--sugar`).
#[derive(Clone, Debug, PartialEq)]
pub enum DPlace {
    /// `_`
    Wild,
    /// A variable or an element.
    Place(Place),
    /// `(a, b, ..)`
    Tuple(Vec<DPlace>),
    /// `[a, b, ..]`
    Array(Vec<DPlace>),
}

/// The right side of a destructuring assignment, of the shape of its left side (`--sugar`).
#[derive(Clone, Debug, PartialEq)]
pub enum DValue {
    /// A float.
    Expr(Expr),
    /// `(a, b, ..)`
    Tuple(Vec<DValue>),
    /// `[a, b, ..]`
    Array(Vec<DValue>),
    /// A call of a helper returning `(f64, f64)`, for a two-place tuple.
    Call(String, Vec<Arg>),
}

/// A float expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A float literal (non-negative).
    Lit(f64),
    /// A float variable or scalar parameter.
    Var(String),
    /// `a[i]` of a slice parameter or a local array.
    Index(String, IExpr),
    /// `-e`
    Neg(Box<Expr>),
    /// `e.method(..)`
    Method(Method, Box<Expr>),
    /// `a op b`
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `a.method(b, ..)`: the receiver, then the arguments (one, or two for `mul_add`).
    Method2(Method2, Box<Expr>, Vec<Expr>),
    /// `i as f64` (or `T::from(i).unwrap()` in generic code)
    Cast(IExpr),
    /// A call of another generated function.
    Call(String, Vec<Arg>),
    /// `if c { a } else { b }`
    If(Box<Cond>, Box<Expr>, Box<Expr>),
    /// `match i { p => e, .. }` (the last arm is `_`)
    Match(IExpr, Vec<(Pat, Expr)>),
    /// An iterator chain over an array (`--forms`): `a.iter().map(|&el| el.m()).sum::<f64>()` with a
    /// method, `a.iter().fold(0.0, |acc, &el| acc + el * el)` without (generic code folds from `T::zero()`);
    /// over the sub-slice `a[1..]` when the flag is set.
    Fold(String, Option<Method>, bool),
    /// A call of a closure bound to a local (`--forms`): `name(arg)`.
    CallClosure(String, Box<Expr>),
    /// `m[i][j]` of a matrix (`--forms`).
    Index2(String, IExpr, IExpr),
    /// An order-dependent fold over an array (`--sugar`): `a.iter()` with the adapters (`.rev()`,
    /// `.enumerate()`), then `.fold(init, |acc, &v| acc * c + v)` (after `.enumerate()`,
    /// `|acc, (i, &v)| acc * c + v * (i as f64 + 1.0)`): the initial value and `c`.
    HornerFold(String, Vec<Adapter>, f64, f64),
    /// Source written by a generator (`--vecs`), printed in parentheses, as in [`Stmt::Raw`].
    Raw(String, Vec<Expr>),
}

/// The target of an assignment.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A mutable float variable.
    Var(String),
    /// An element of a local array.
    Index(String, IExpr),
    /// An element of a local matrix, `m[i][j]` (`--forms`).
    Index2(String, IExpr, IExpr),
}

/// One branch of a tuple-valued `if`/`match` (`--forms`).
#[derive(Clone, Debug, PartialEq)]
pub enum PairVal {
    /// A tuple literal `(a, b)`.
    Lit(Expr, Expr),
    /// A call of a helper returning `(f64, f64)`.
    Call(String, Vec<Arg>),
}

/// The value destructured by `let (a, b) = ..;` (`--forms`).
#[derive(Clone, Debug, PartialEq)]
pub enum PairInit {
    /// A tuple parameter (holding an array `[f64; 1]` as its second part where set).
    Var(String, bool),
    /// A tuple literal or a call.
    Val(PairVal),
    /// `if c { .. } else { .. }` with tuple branches.
    If(Box<Cond>, PairVal, PairVal),
    /// `match i { p => .., _ => .. }` with tuple arms.
    Match(IExpr, Vec<(Pat, PairVal)>),
}

/// An assignment operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`
    Set,
    /// `+=`
    Add,
    /// `-=`
    Sub,
    /// `*=`
    Mul,
}

/// How a local array is made.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayInit {
    /// `vec![fill; len]`
    Vec(Expr, IExpr),
    /// `[fill; n]`
    Fixed(Expr, usize),
    /// `[a, b, c]`
    List(Vec<Expr>),
    /// `src`, a local fixed-size array: a copy (`let mut d = c;`).
    CopyOf(String),
}

/// What a `for` loop iterates over.
#[derive(Clone, Debug, PartialEq)]
pub enum ForIter {
    /// `for var in lo..hi` / `lo..=hi`, optionally `.rev()` and `.step_by(k)`.
    Range {
        /// The `usize` loop variable.
        var: String,
        /// The start.
        lo: IExpr,
        /// The end.
        hi: IExpr,
        /// `..=` instead of `..`.
        inclusive: bool,
        /// `.rev()`
        rev: bool,
        /// `.step_by(k)`
        step: Option<usize>,
    },
    /// `for &v in xs`
    Values {
        /// The float loop variable.
        var: String,
        /// The slice or array iterated.
        arr: String,
    },
    /// `for (i, &v) in xs.iter().enumerate()`
    Enumerate {
        /// The index variable.
        index: String,
        /// The float variable.
        var: String,
        /// The slice or array iterated.
        arr: String,
    },
    /// `for pat in chain` (`--sugar`): ranges and slice iterators with `.rev()`, `.step_by(k)`,
    /// `.enumerate()` and `.zip(..)` in any valid order.
    Chain {
        /// The pattern, of the shape of the chain's items.
        pat: LoopPat,
        /// The chain.
        chain: Chain,
    },
    /// `for (&a, &b) in xs.iter().zip(ys.iter())`
    Zip {
        /// The variable over `arr_a`.
        var_a: String,
        /// The variable over `arr_b`.
        var_b: String,
        /// The first sequence.
        arr_a: String,
        /// The second sequence.
        arr_b: String,
    },
}

/// A statement of a generated body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Statements printed one after the other, in the enclosing block (`--sugar`: an accumulator and
    /// the loop that writes it).
    Seq(Vec<Stmt>),
    /// `target = value;`, a destructuring assignment (`--sugar`).
    Destructure {
        /// The places written, left to right.
        target: DPlace,
        /// The values, all evaluated before the first write.
        value: DValue,
    },
    /// `let name[: f64] = 'label: { body; value };` (`--sugar`), left early by [`Stmt::BreakLabel`].
    LetLabelled {
        /// The variable.
        name: String,
        /// Written with a type annotation.
        annotated: bool,
        /// The label, without its quote.
        label: String,
        /// The statements of the block.
        body: Vec<Stmt>,
        /// Its value when no `break` left it.
        value: Expr,
    },
    /// `if cond { continue; }` inside a `for` loop (`--sugar`).
    ContinueIf(Cond),
    /// `'label: for ..` (`--sugar`): a `for` loop with a label, which loops inside it leave or continue
    /// by [`Stmt::JumpIf`].
    LabelledFor {
        /// The label, without its quote.
        label: String,
        /// The `for` loop.
        inner: Box<Stmt>,
    },
    /// `if cond { continue 'label; }` or `if cond { break 'label; }` inside the labelled `for` (`--sugar`).
    JumpIf {
        /// When to jump.
        cond: Cond,
        /// The loop's label, without its quote.
        label: String,
        /// `continue`, else `break`.
        cont: bool,
    },
    /// `if cond { break 'label value; }` inside a labelled block (`--sugar`), perhaps in a loop nested in it.
    BreakLabel {
        /// The label, without its quote.
        label: String,
        /// When to leave.
        cond: Cond,
        /// The block's value then.
        value: Expr,
    },
    /// `let name = |el: f64| el.method() * capture + lit;` (`--forms`), with `capture` a scalar parameter or
    /// `el` itself.
    LetClosure {
        /// The closure's name.
        name: String,
        /// Applied to the argument.
        method: Method,
        /// What the result is multiplied by: a captured scalar parameter, or `None` for the argument.
        capture: Option<String>,
        /// Added.
        offset: f64,
    },
    /// `let (a, b) = init;` (`--forms`).
    LetPair {
        /// The two names bound.
        names: (String, String),
        /// The tuple destructured.
        init: PairInit,
    },
    /// `let mut name: Vec<Vec<f64>> = vec![vec![fill; cols]; rows];`, or with `fixed`
    /// `let mut name = [[fill; cols]; rows];` (`--forms`).
    LetMatrix {
        /// The variable.
        name: String,
        /// The number of rows.
        rows: usize,
        /// The number of columns.
        cols: usize,
        /// The initial value of every element.
        fill: Expr,
        /// A nested array, not a `Vec` of `Vec`s.
        fixed: bool,
    },
    /// `let [mut] name[: f64] = init;`
    Let {
        /// The variable.
        name: String,
        /// Declared `mut`.
        mutable: bool,
        /// Written with a type annotation.
        annotated: bool,
        /// The initial value.
        init: Expr,
    },
    /// `let [mut] name[: Vec<f64> / [f64; n]] = <array>;`
    LetArray {
        /// The variable.
        name: String,
        /// Written with a type annotation.
        annotated: bool,
        /// How it is made.
        init: ArrayInit,
    },
    /// `target = source;` of two local fixed-size arrays of one length (a copy of every element).
    AssignWhole {
        /// The array written.
        target: String,
        /// The array copied.
        source: String,
    },
    /// `place op value;`
    Assign {
        /// What is written.
        place: Place,
        /// `=`, `+=`, ...
        op: AssignOp,
        /// The right-hand side.
        value: Expr,
    },
    /// A `for` loop.
    For {
        /// What it iterates.
        iter: ForIter,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `let mut k = 0; while k < bound [&& cond] { body; k += 1; }`
    While {
        /// The counter.
        counter: String,
        /// Its bound.
        bound: usize,
        /// An extra condition.
        cond: Option<Cond>,
        /// The body (the increment is printed after it).
        body: Vec<Stmt>,
    },
    /// `let mut k = 0; [let name =] loop { body; k += 1; if k >= bound { break [value]; } }`
    Loop {
        /// The counter.
        counter: String,
        /// Its bound.
        bound: usize,
        /// `Some((name, value))` for `let name = loop { .. break value; }`.
        result: Option<(String, Expr)>,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `if cond { break [value]; }` inside a `loop`.
    BreakIf {
        /// When to leave.
        cond: Cond,
        /// The value, inside `let name = loop`.
        value: Option<Expr>,
    },
    /// `if cond { then } [else { els }]`
    If {
        /// The condition.
        cond: Cond,
        /// The then block.
        then: Vec<Stmt>,
        /// The else block.
        els: Option<Vec<Stmt>>,
    },
    /// `match scrut { pat => { body } .. }` (the last arm is `_`).
    Match {
        /// The integer matched.
        scrut: IExpr,
        /// The arms.
        arms: Vec<(Pat, Vec<Stmt>)>,
    },
    /// Source written by a generator (`--vecs`), one line: `$T` is the float type, `$H` the literal `0.5`, `@name` a generated function as the
    /// copy calls it, `{k}` the `k`-th
    /// expression printed in the copy's flavour.
    Raw {
        /// The text.
        text: String,
        /// The expressions it holds.
        exprs: Vec<Expr>,
    },
    /// `head { body }` (`--vecs`), the head written as in [`Stmt::Raw`].
    RawBlock {
        /// The text before the braces.
        head: String,
        /// The expressions the head holds.
        exprs: Vec<Expr>,
        /// The block.
        body: Vec<Stmt>,
    },
    /// `if cond { return value; }`
    ReturnIf {
        /// When to return.
        cond: Cond,
        /// The returned value(s): one, or two for a pair result.
        values: Vec<Expr>,
    },
}

/// Whether `name` is a slice parameter: by the generator's naming convention they are `xs`, `ys`, `ws`, and
/// no local array starts with `x`, `y` or `w`.
pub fn is_slice_param(name: &str) -> bool {
    name.starts_with(['x', 'y', 'w'])
}

/// The type a matrix parameter is written with (`--forms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatStyle {
    /// `&[Vec<f64>]`.
    Slice,
    /// `mut m: Vec<Vec<f64>>`, taken by value and written like a local (the checked function only).
    Vec,
    /// `mut m: [[f64; C]; R]`, taken by value and written like a local.
    Nested,
    /// `&[[f64; C]; R]`.
    NestedRef,
}

impl MatStyle {
    /// Taken by value (declared `mut`, written by the body).
    pub fn by_value(self) -> bool {
        matches!(self, MatStyle::Vec | MatStyle::Nested)
    }

    /// A nested array (its gradient and tangent `[[f64; C]; R]`), not `Vec`s.
    pub fn nested(self) -> bool {
        matches!(self, MatStyle::Nested | MatStyle::NestedRef)
    }

    /// What to write before a matrix of style `from` to pass it to a parameter of this style, if it can be.
    pub fn pass_from(self, from: MatStyle) -> Option<&'static str> {
        match (self, from) {
            (MatStyle::Slice, MatStyle::Vec) | (MatStyle::NestedRef, MatStyle::Nested) => Some("&"),
            (MatStyle::Slice, MatStyle::Slice)
            | (MatStyle::NestedRef, MatStyle::NestedRef)
            | (MatStyle::Nested, MatStyle::Nested) => Some(""),
            (MatStyle::Nested, MatStyle::NestedRef) => Some("*"),
            _ => None,
        }
    }
}

/// The kind of a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A float scalar.
    Scalar,
    /// `&[f64]` with the given length at every call.
    Slice(usize),
    /// `usize`, always passed the given value by the harness.
    Int(usize),
    /// `&mut [f64]` of the given length, an output parameter (`--forms`; helpers only): the body writes
    /// it, and reads it where `reads` is set (`out[i] += ..`).
    Out(usize),
    /// `&mut f64`, a float output parameter (`--forms`; helpers only): the body reads and writes it as
    /// `(*e)`, a mutable float.
    OutFloat,
    /// `(f64, f64)`, a tuple parameter (`--forms`; helpers only), destructured by `let (p0, p1) = p;`;
    /// with `true`, `(f64, [f64; 1])`, a tuple holding an array, read `let (p0, p1) = (p.0, p.1[0]);`
    /// and passed `(a, [b])`.
    Pair(bool),
    /// A matrix with the given rows and columns at every call, of the given type (`--forms`).
    Matrix(usize, usize, MatStyle),
}

/// A parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: ParamKind,
}

/// The hand-written custom gradients the generator picks from (each closure is correct).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CustomKind {
    /// `tanh(x)` with `dy * (1 - t^2)`.
    Tanh,
    /// `sin(x) * y` with `(dy cos(x) y, dy sin(x))`.
    SinTimes,
    /// `ln(1 + exp(x))` with `dy e / (1 + e)`.
    Softplus,
}

/// What kind of function a generated function is.
#[derive(Clone, Debug, PartialEq)]
pub enum FnKind {
    /// `#[differentiable(..)]`
    Differentiable {
        /// `order = 2`
        order2: bool,
        /// `wrt(..)`
        wrt: Option<Vec<String>>,
    },
    /// `#[custom_gradient]`, from the menu.
    Custom(CustomKind),
}

/// A generated function.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    /// Its name (the oracle copy appends `_oracle`).
    pub name: String,
    /// Generic over `T: Float` instead of `f64`.
    pub generic: bool,
    /// The attribute.
    pub kind: FnKind,
    /// The parameters.
    pub params: Vec<Param>,
    /// The statements (unused for custom gradients).
    pub body: Vec<Stmt>,
    /// The result: one value, or two for a pair.
    pub tail: Vec<Expr>,
    /// The slice parameters declared `mut` (`mut xs: &[f64]`), which the body rebinds to sub-slices of
    /// themselves (`--vecs`).
    pub mut_slices: Vec<String>,
    /// The parameters of the checked function written otherwise than `&[f64]` and `f64` (`--sugar`), by
    /// name.
    pub param_styles: Vec<(String, ParamStyle)>,
    /// A pair result written as an array, `-> [f64; 2]` and `[a, b]` (`--sugar`, the checked function only,
    /// which no other calls): the harness checks its `f_jacobian` too.
    pub result_array: bool,
}

/// How a slice or scalar parameter is written, where not `&[f64]` or `f64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamStyle {
    /// `&f64`, read `(*x)` by the body: its gradient an `f64`.
    Scalar,
    /// `&Vec<f64>`: its gradient a `Vec<f64>`, as of `&[f64]`.
    Vec,
    /// `&[f64; N]`: its gradient, `f_grad_into`'s buffer and `f_jvp`'s tangent are `[f64; N]`.
    Array,
}

impl Func {
    /// How the parameter `name` is written, where not `&[f64]` or `f64`.
    pub fn param_style(&self, name: &str) -> Option<ParamStyle> {
        self.param_styles
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    /// Whether the function returns a pair `(f64, f64)`.
    pub fn returns_pair(&self) -> bool {
        self.tail.len() == 2
    }

    /// The active parameters (those differentiated) in declaration order.
    pub fn active_params(&self) -> Vec<&Param> {
        self.params
            .iter()
            .filter(|p| {
                !matches!(
                    p.kind,
                    ParamKind::Int(_)
                        | ParamKind::Out(_)
                        | ParamKind::OutFloat
                        | ParamKind::Pair(_)
                )
            })
            .filter(|p| match &self.kind {
                FnKind::Differentiable { wrt: Some(w), .. } => w.contains(&p.name),
                _ => true,
            })
            .collect()
    }

    /// Whether `order = 2` is requested.
    pub fn order2(&self) -> bool {
        matches!(self.kind, FnKind::Differentiable { order2: true, .. })
    }
}

/// A generated program: helper functions first, the checked main function last.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The number of the program in its run (module `p{id}`).
    pub id: usize,
    /// The functions; the last one is the one the harness checks.
    pub funcs: Vec<Func>,
    /// Helpers printed as `fn` items inside the main function's body (`--forms`), by name: each one no other
    /// helper calls.
    pub nested: Vec<String>,
    /// A program of `--structs` (`gen/structs.rs`): its structs, methods and functions, printed and checked
    /// by that module; `funcs` is then empty.
    pub structs: Option<Box<crate::gen::StructProgram>>,
}

impl Program {
    /// The function the harness checks.
    pub fn main(&self) -> &Func {
        self.funcs.last().expect("a program has a main function")
    }

    /// A rough size, for shrinking and reporting: the number of AST nodes.
    pub fn size(&self) -> usize {
        self.funcs
            .iter()
            .map(|f| {
                1 + f.body.iter().map(stmt_size).sum::<usize>()
                    + f.tail.iter().map(expr_size).sum::<usize>()
            })
            .sum()
    }
}

fn stmt_size(s: &Stmt) -> usize {
    let block = |b: &[Stmt]| b.iter().map(stmt_size).sum::<usize>();
    1 + match s {
        Stmt::Seq(b) => block(b),
        Stmt::Destructure { value, .. } => dvalue_size(value),
        Stmt::LetLabelled { body, value, .. } => block(body) + expr_size(value),
        Stmt::BreakLabel { value, .. } => expr_size(value),
        Stmt::ContinueIf(_) | Stmt::JumpIf { .. } => 1,
        Stmt::LabelledFor { inner, .. } => stmt_size(inner),
        Stmt::Let { init, .. } => expr_size(init),
        Stmt::LetClosure { .. } => 1,
        Stmt::LetPair { init, .. } => match init {
            PairInit::Var(..) => 0,
            PairInit::Val(v) => pair_val_size(v),
            PairInit::If(_, a, b) => 1 + pair_val_size(a) + pair_val_size(b),
            PairInit::Match(_, arms) => arms.iter().map(|(_, v)| pair_val_size(v)).sum(),
        },
        Stmt::LetMatrix { fill, .. } => expr_size(fill),
        Stmt::LetArray { init, .. } => match init {
            ArrayInit::Vec(e, _) | ArrayInit::Fixed(e, _) => expr_size(e),
            ArrayInit::List(es) => es.iter().map(expr_size).sum(),
            ArrayInit::CopyOf(_) => 1,
        },
        Stmt::AssignWhole { .. } => 1,
        Stmt::Assign { value, .. } => expr_size(value),
        Stmt::For { body, .. } | Stmt::While { body, .. } => block(body),
        Stmt::Loop { body, result, .. } => {
            block(body) + result.as_ref().map_or(0, |(_, e)| expr_size(e))
        }
        Stmt::BreakIf { value, .. } => value.as_ref().map_or(1, expr_size),
        Stmt::If { then, els, .. } => block(then) + els.as_deref().map_or(0, block),
        Stmt::Match { arms, .. } => arms.iter().map(|(_, b)| block(b)).sum(),
        Stmt::ReturnIf { values, .. } => values.iter().map(expr_size).sum(),
        Stmt::Raw { exprs, .. } => exprs.iter().map(expr_size).sum(),
        Stmt::RawBlock { exprs, body, .. } => {
            exprs.iter().map(expr_size).sum::<usize>() + block(body)
        }
    }
}

fn dvalue_size(v: &DValue) -> usize {
    match v {
        DValue::Expr(e) => expr_size(e),
        DValue::Tuple(vs) | DValue::Array(vs) => vs.iter().map(dvalue_size).sum(),
        DValue::Call(_, args) => 1 + args.iter().map(arg_size).sum::<usize>(),
    }
}

fn pair_val_size(v: &PairVal) -> usize {
    match v {
        PairVal::Lit(a, b) => expr_size(a) + expr_size(b),
        PairVal::Call(_, args) => 1 + args.iter().map(arg_size).sum::<usize>(),
    }
}

fn arg_size(a: &Arg) -> usize {
    match a {
        Arg::Float(e) => expr_size(e),
        Arg::Pair(a, b, _) => expr_size(a) + expr_size(b),
        _ => 1,
    }
}

fn expr_size(e: &Expr) -> usize {
    1 + match e {
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::Index(..)
        | Expr::Index2(..)
        | Expr::Cast(_)
        | Expr::Fold(..)
        | Expr::HornerFold(..) => 0,
        Expr::CallClosure(_, a) => expr_size(a),
        Expr::Raw(_, es) => es.iter().map(expr_size).sum(),
        Expr::Neg(a) | Expr::Method(_, a) => expr_size(a),
        Expr::Bin(_, a, b) => expr_size(a) + expr_size(b),
        Expr::Method2(_, a, args) => expr_size(a) + args.iter().map(expr_size).sum::<usize>(),
        Expr::Call(_, args) => args.iter().map(arg_size).sum(),
        Expr::If(_, a, b) => 1 + expr_size(a) + expr_size(b),
        Expr::Match(_, arms) => arms.iter().map(|(_, e)| expr_size(e)).sum(),
    }
}
