//! The measurements quoted in `docs/coming-from-tensorflow-and-jax.md`: every table there is printed by
//! this program, in the same order.
//!
//! ```sh
//! cargo run --release --example measurements
//! ```
//!
//! 1. Finite differences against the gradient of `f_grad`, at several step sizes.
//! 2. The cost of a full gradient against the number of inputs: reverse mode, forward mode, differences.
//! 3. Expression swell: the size of a symbolic derivative of a nested expression against an adjoint's.
//! 4. A matrix product written as loops: its generated VJP against `dC · Bᵀ` and `Aᵀ · dC`.
//! 5. The cost of a Hessian (`order = 2`) against the gradient's.
//! 6. The cost of calls: a loop that calls a differentiable function against the same loop inlined.
//!
//! Times are the fastest of several batches, each long enough to time, on whatever machine runs it.
//!
//! With `--update-docs` it also writes each section's output into the guide, between the lines
//! `<!-- measurements: N -->` and `<!-- /measurements -->`, so that the guide's figures are this
//! program's:
//!
//! ```sh
//! cargo run --release --example measurements -- --update-docs
//! ```

use autodiff::{differentiable, Float};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hint::black_box;
use std::rc::Rc;
use std::time::Instant;

thread_local! {
    /// Everything printed, kept for `--update-docs`.
    static PRINTED: RefCell<String> = const { RefCell::new(String::new()) };
}

/// `println!`, also keeping the line for `--update-docs`.
macro_rules! say {
    ($($arg:tt)*) => {{
        let line = format!($($arg)*);
        println!("{line}");
        PRINTED.with(|printed| {
            let mut printed = printed.borrow_mut();
            printed.push_str(&line);
            printed.push('\n');
        });
    }};
}

/// The guide whose tables this program prints.
const GUIDE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/docs/coming-from-tensorflow-and-jax.md"
);

fn main() {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    say!("Measured on {cores} cores ({}).", std::env::consts::ARCH);
    finite_differences();
    cost_against_inputs();
    expression_swell();
    matrix_product();
    hessian_cost();
    call_cost();
    if std::env::args().any(|a| a == "--update-docs") {
        let printed = PRINTED.with(|printed| printed.borrow().clone());
        let guide = std::fs::read_to_string(GUIDE).expect("the guide is readable");
        std::fs::write(GUIDE, update(&guide, &printed)).expect("the guide is writable");
        println!("\nwrote the tables into {GUIDE}");
    }
}

/// `guide` with the text between `<!-- measurements: N -->` and the next `<!-- /measurements -->`
/// replaced by section N of `printed` (its lines after the `## N.` heading).
fn update(guide: &str, printed: &str) -> String {
    let mut sections: HashMap<String, String> = HashMap::new();
    let mut current = None;
    for line in printed.lines() {
        if let Some(rest) = line.strip_prefix("## ") {
            let number = rest.split('.').next().unwrap_or_default().to_string();
            sections.insert(number.clone(), String::new());
            current = Some(number);
        } else if let Some(number) = &current {
            let section = sections.get_mut(number).expect("inserted at its heading");
            section.push_str(line);
            section.push('\n');
        }
    }
    let mut out = String::new();
    let mut skipping = false;
    for line in guide.lines() {
        if skipping {
            if line.trim() == "<!-- /measurements -->" {
                out.push_str(line);
                out.push('\n');
                skipping = false;
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if let Some(number) = line
            .trim()
            .strip_prefix("<!-- measurements: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        {
            let section = sections.get(number).map_or("", |s| s.trim());
            out.push('\n');
            out.push_str(section);
            out.push_str("\n\n");
            skipping = true;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------------
// 1. Finite differences

/// The function of the README and of `tests/expand/basic.rs`.
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z.exp()
}

fn finite_differences() {
    let (x, y) = (1.0, 2.0);
    // ∂f/∂x = exp(x y + sin x) (y + cos x), worked out by hand.
    let exact = (x * y + x.sin()).exp() * (y + x.cos());
    let relative = |approx: f64| ((approx - exact) / exact).abs();
    say!("\n## 1. ∂f/∂x of f(x, y) = exp(x·y + sin x) at (1, 2): relative error\n");
    say!("| step h | forward difference (f(x+h) − f(x)) / h | central difference (f(x+h) − f(x−h)) / 2h |");
    say!("| ---: | ---: | ---: |");
    for e in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] {
        let h = 10f64.powi(-e);
        let forward = (f(x + h, y) - f(x, y)) / h;
        let central = (f(x + h, y) - f(x - h, y)) / (2.0 * h);
        say!(
            "| 1e-{e} | {:.1e} | {:.1e} |",
            relative(forward),
            relative(central)
        );
    }
    let (_, (dx, _)) = f_grad(x, y);
    say!(
        "\n`f_grad(1.0, 2.0)`: relative error {:.1e} (one call; the differences take 2 or 3 calls of f per input).",
        relative(dx)
    );
}

// ---------------------------------------------------------------------------------------------------
// 2. Cost against the number of inputs

/// The extended Rosenbrock function, generic so that `order = 2` can run it on dual numbers.
#[differentiable(order = 2)]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

fn start(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect()
}

/// Seconds per call of `work`: the fastest of 7 batches, each repeated until it lasts at least 20 ms
/// (the fastest, not the median, because other work on a shared machine only ever adds time).
fn seconds_per_call(mut work: impl FnMut()) -> f64 {
    work();
    let mut reps = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            work();
        }
        if t.elapsed().as_secs_f64() >= 0.02 {
            break;
        }
        reps *= 2;
    }
    (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                work();
            }
            t.elapsed().as_secs_f64() / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn duration(seconds: f64) -> String {
    if seconds < 1e-6 {
        format!("{:.0} ns", seconds * 1e9)
    } else if seconds < 1e-3 {
        format!("{:.2} µs", seconds * 1e6)
    } else if seconds < 1.0 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{seconds:.2} s")
    }
}

fn cost_against_inputs() {
    say!("\n## 2. The full gradient of the extended Rosenbrock function of n inputs\n");
    say!("| n | f | reverse: 1 × `_grad` | forward: n × `_jvp` | central differences: 2n × f | reverse / f | forward / f |");
    say!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for n in [10, 100, 1000, 10_000] {
        let x = start(n);
        let primal = seconds_per_call(|| {
            black_box(rosenbrock(black_box(&x)));
        });
        let reverse = seconds_per_call(|| {
            black_box(rosenbrock_grad(black_box(&x)));
        });
        let forward = seconds_per_call(|| {
            let mut gradient = vec![0.0; n];
            let mut tangent = vec![0.0; n];
            for i in 0..n {
                tangent[i] = 1.0;
                gradient[i] = rosenbrock_jvp(&x, tangent).1;
                tangent = vec![0.0; n];
            }
            black_box(gradient);
        });
        let differences = seconds_per_call(|| {
            let mut x = x.clone();
            let mut gradient = vec![0.0; n];
            for i in 0..n {
                let h = 1e-6 * x[i].abs().max(1.0);
                let xi = x[i];
                x[i] = xi + h;
                let up = rosenbrock(&x);
                x[i] = xi - h;
                let down = rosenbrock(&x);
                x[i] = xi;
                gradient[i] = (up - down) / (2.0 * h);
            }
            black_box(gradient);
        });
        say!(
            "| {n} | {} | {} | {} | {} | {:.1} | {:.0} |",
            duration(primal),
            duration(reverse),
            duration(forward),
            duration(differences),
            reverse / primal,
            forward / primal
        );
    }
    // The three agree: a check, not a timing.
    let x = start(100);
    let (_, gradient) = rosenbrock_grad(&x);
    let mut worst: f64 = 0.0;
    for (i, gi) in gradient.iter().enumerate() {
        let mut tangent = vec![0.0; 100];
        tangent[i] = 1.0;
        worst = worst.max((rosenbrock_jvp(&x, tangent).1 - gi).abs());
    }
    say!("\nForward and reverse gradients at n = 100 differ by at most {worst:.1e}.");
}

// ---------------------------------------------------------------------------------------------------
// 3. Expression swell

/// The logistic map iterated `levels` times: l ← 4 l (1 − l), the nested expression of Baydin et al.,
/// "Automatic differentiation in machine learning: a survey" (JMLR 2018), Table 1.
#[differentiable]
fn logistic(x: f64, levels: usize) -> f64 {
    let mut l = x;
    for _ in 0..levels {
        l = 4.0 * l * (1.0 - l);
    }
    l
}

/// A tiny expression tree, shared by `Rc`: enough for a symbolic differentiator.
enum Expr {
    X,
    Const(f64),
    Add(Rc<Expr>, Rc<Expr>),
    Sub(Rc<Expr>, Rc<Expr>),
    Mul(Rc<Expr>, Rc<Expr>),
}

use Expr::{Add, Const, Mul, Sub, X};

fn key(e: &Rc<Expr>) -> *const Expr {
    Rc::as_ptr(e)
}

/// The number of nodes of `e` written out as a tree (each shared subexpression counted every time it
/// is used): the size of the formula on paper. Memoised, so that it runs in the size of the graph.
fn tree_size(e: &Rc<Expr>, memo: &mut HashMap<*const Expr, u128>) -> u128 {
    if let Some(&size) = memo.get(&key(e)) {
        return size;
    }
    let size = match &**e {
        X | Const(_) => 1,
        Add(a, b) | Sub(a, b) | Mul(a, b) => 1 + tree_size(a, memo) + tree_size(b, memo),
    };
    memo.insert(key(e), size);
    size
}

/// The number of distinct nodes of `e`: the size of the expression graph with sharing.
fn graph_size(e: &Rc<Expr>, seen: &mut HashMap<*const Expr, ()>) -> usize {
    if seen.insert(key(e), ()).is_some() {
        return 0;
    }
    match &**e {
        X | Const(_) => 1,
        Add(a, b) | Sub(a, b) | Mul(a, b) => 1 + graph_size(a, seen) + graph_size(b, seen),
    }
}

fn eval(e: &Rc<Expr>, x: f64, memo: &mut HashMap<*const Expr, f64>) -> f64 {
    if let Some(&v) = memo.get(&key(e)) {
        return v;
    }
    let v = match &**e {
        X => x,
        Const(c) => *c,
        Add(a, b) => eval(a, x, memo) + eval(b, x, memo),
        Sub(a, b) => eval(a, x, memo) - eval(b, x, memo),
        Mul(a, b) => eval(a, x, memo) * eval(b, x, memo),
    };
    memo.insert(key(e), v);
    v
}

/// Symbolic d/dx by the rules on paper (sum and product rules), simplifying `0 · e`, `1 · e`, `e + 0`
/// and `e − 0` as a computer algebra system would. Memoised per node, so the derivative of a shared
/// subexpression is built once and shared too: the tree size of the result is what the formula is on
/// paper, its graph size what it costs with common subexpressions kept.
fn derivative(e: &Rc<Expr>, memo: &mut HashMap<*const Expr, Rc<Expr>>) -> Rc<Expr> {
    if let Some(d) = memo.get(&key(e)) {
        return d.clone();
    }
    let is = |e: &Rc<Expr>, v: f64| matches!(**e, Const(c) if c == v);
    let add = |a: Rc<Expr>, b: Rc<Expr>| {
        if is(&a, 0.0) {
            b
        } else if is(&b, 0.0) {
            a
        } else {
            Rc::new(Add(a, b))
        }
    };
    let mul = |a: Rc<Expr>, b: Rc<Expr>| {
        if is(&a, 0.0) || is(&b, 0.0) {
            Rc::new(Const(0.0))
        } else if is(&a, 1.0) {
            b
        } else if is(&b, 1.0) {
            a
        } else {
            Rc::new(Mul(a, b))
        }
    };
    let d = match &**e {
        X => Rc::new(Const(1.0)),
        Const(_) => Rc::new(Const(0.0)),
        Add(a, b) => add(derivative(a, memo), derivative(b, memo)),
        Sub(a, b) => {
            let (da, db) = (derivative(a, memo), derivative(b, memo));
            if is(&db, 0.0) {
                da
            } else {
                Rc::new(Sub(da, db))
            }
        }
        Mul(a, b) => {
            let (da, db) = (derivative(a, memo), derivative(b, memo));
            add(mul(da, b.clone()), mul(a.clone(), db))
        }
    };
    memo.insert(key(e), d.clone());
    d
}

/// The arithmetic operations of a reverse sweep over the graph of `e`: for each operation node, one
/// multiplication per non-constant operand of a product and one addition per adjoint contribution to
/// a node used more than once, as the generated `_vjp` does. (Additions of a plain pass-through
/// adjoint and multiplications by a constant's adjoint are not emitted, so they are not counted.)
fn adjoint_operations(e: &Rc<Expr>) -> usize {
    fn uses(e: &Rc<Expr>, count: &mut HashMap<*const Expr, usize>) {
        let first = !count.contains_key(&key(e));
        *count.entry(key(e)).or_insert(0) += 1;
        if first {
            if let Add(a, b) | Sub(a, b) | Mul(a, b) = &**e {
                uses(a, count);
                uses(b, count);
            }
        }
    }
    let mut count = HashMap::new();
    uses(e, &mut count);
    let mut seen = HashMap::new();
    fn walk(
        e: &Rc<Expr>,
        count: &HashMap<*const Expr, usize>,
        seen: &mut HashMap<*const Expr, ()>,
    ) -> usize {
        if seen.insert(key(e), ()).is_some() {
            return 0;
        }
        let constant = |e: &Rc<Expr>| matches!(**e, Const(_));
        let own = match &**e {
            X | Const(_) => 0,
            Add(..) => 0,
            Sub(_, b) => usize::from(!constant(b)),
            Mul(a, b) => usize::from(!constant(a)) + usize::from(!constant(b)),
        };
        // A node reached from k uses sums k contributions: k − 1 additions.
        let sums = count[&key(e)].saturating_sub(1) * usize::from(!constant(e));
        let children = match &**e {
            X | Const(_) => 0,
            Add(a, b) | Sub(a, b) | Mul(a, b) => walk(a, count, seen) + walk(b, count, seen),
        };
        own + sums + children
    }
    walk(e, &count, &mut seen)
}

fn expression_swell() {
    say!("\n## 3. The logistic map l ← 4·l·(1 − l), n levels deep, and its derivative\n");
    say!("| n | f as a formula (nodes) | f as a graph (nodes) | d/dx as a formula (nodes) | d/dx as a graph (nodes) | adjoint (operations) |");
    say!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let x = 0.3;
    let mut l = Rc::new(X);
    for n in 1..=20 {
        l = Rc::new(Mul(
            Rc::new(Mul(Rc::new(Const(4.0)), l.clone())),
            Rc::new(Sub(Rc::new(Const(1.0)), l)),
        ));
        let d = derivative(&l, &mut HashMap::new());
        // The tree is the function, and the symbolic derivative agrees with the generated adjoint.
        assert_eq!(eval(&l, x, &mut HashMap::new()), logistic(x, n));
        let symbolic = eval(&d, x, &mut HashMap::new());
        let (_, generated) = logistic_grad(x, n);
        assert!((symbolic - generated).abs() <= 1e-9 * generated.abs().max(1.0));
        if [1, 2, 3, 4, 5, 10, 20].contains(&n) {
            say!(
                "| {n} | {} | {} | {} | {} | {} |",
                tree_size(&l, &mut HashMap::new()),
                graph_size(&l, &mut HashMap::new()),
                tree_size(&d, &mut HashMap::new()),
                graph_size(&d, &mut HashMap::new()),
                adjoint_operations(&l),
            );
        }
    }
    say!("\nAt every n from 1 to 20 the symbolic derivative and `logistic_grad` agree at x = {x}.");
}

// ---------------------------------------------------------------------------------------------------
// 4. A matrix product

/// C = A B for A of m × k and B of k × n, all row-major in flat slices (the function of
/// `tests/expand/matmul.rs`).
#[differentiable]
fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for p in 0..k {
                s += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// The product of two row-major matrices, the second one transposed first or not, written by hand.
fn product(
    a: &[f64],
    b: &[f64],
    (m, k, n): (usize, usize, usize),
    transpose: (bool, bool),
) -> Vec<f64> {
    let at = |i: usize, p: usize| {
        if transpose.0 {
            a[p * m + i]
        } else {
            a[i * k + p]
        }
    };
    let bt = |p: usize, j: usize| {
        if transpose.1 {
            b[j * k + p]
        } else {
            b[p * n + j]
        }
    };
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| at(i, p) * bt(p, j)).sum();
        }
    }
    c
}

fn rows(flat: &[f64], columns: usize) -> String {
    flat.chunks(columns)
        .map(|row| {
            let cells: Vec<String> = row.iter().map(|v| format!("{v}")).collect();
            format!("[{}]", cells.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn matrix_product() {
    say!("\n## 4. C = A·B written as loops: the generated VJP\n");
    let (m, k, n) = (2, 3, 2);
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b = [7.0, 8.0, 9.0, 10.0, 11.0, 12.0];
    let dc = [1.0, -1.0, 0.5, 2.0];
    let (c, (da, db)) = matmul_vjp(&a, &b, m, k, n, dc.to_vec());
    let dc_bt = product(&dc, &b, (m, n, k), (false, true)); // dC (m × n) · Bᵀ (n × k)
    let at_dc = product(&a, &dc, (k, m, n), (true, false)); // Aᵀ (k × m) · dC (m × n)
    say!("A = {} (2 × 3), B = {} (3 × 2)", rows(&a, k), rows(&b, n));
    say!("C = {}, dC = {}", rows(&c, n), rows(&dc, n));
    say!("dA from `matmul_vjp` = {}", rows(&da, k));
    say!("dC · Bᵀ             = {}", rows(&dc_bt, k));
    say!("dB from `matmul_vjp` = {}", rows(&db, n));
    say!("Aᵀ · dC             = {}", rows(&at_dc, n));
    assert_eq!(da, dc_bt);
    assert_eq!(db, at_dc);

    // The same at 64 × 64, with the cost.
    let size = 64;
    let square: Vec<f64> = (0..size * size)
        .map(|i| ((i * 7919) % 97) as f64 / 97.0 - 0.5)
        .collect();
    let other: Vec<f64> = (0..size * size)
        .map(|i| ((i * 104_729) % 89) as f64 / 89.0 - 0.5)
        .collect();
    let cotangent: Vec<f64> = (0..size * size)
        .map(|i| ((i * 31) % 13) as f64 / 13.0)
        .collect();
    let dims = (size, size, size);
    let (_, (da, db)) = matmul_vjp(&square, &other, size, size, size, cotangent.clone());
    let max_difference = |x: &[f64], y: &[f64]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max)
    };
    let da_error = max_difference(&da, &product(&cotangent, &other, dims, (false, true)));
    let db_error = max_difference(&db, &product(&square, &cotangent, dims, (true, false)));
    let primal = seconds_per_call(|| {
        black_box(matmul(
            black_box(&square),
            black_box(&other),
            size,
            size,
            size,
        ));
    });
    let vjp = seconds_per_call(|| {
        black_box(matmul_vjp(
            &square,
            &other,
            size,
            size,
            size,
            black_box(cotangent.clone()),
        ));
    });
    say!(
        "\nAt 64 × 64: dA differs from dC · Bᵀ by at most {da_error:.1e}, dB from Aᵀ · dC by at most \
         {db_error:.1e}; `matmul` takes {}, `matmul_vjp` {} ({:.1} times).",
        duration(primal),
        duration(vjp),
        vjp / primal
    );
}

// ---------------------------------------------------------------------------------------------------
// 5. Hessians

fn hessian_cost() {
    say!("\n## 5. Second derivatives of the extended Rosenbrock function (`order = 2`)\n");
    say!("| n | f | `_grad` | `_hvp` (one H·v) | `_hessian` (n × H·v) | `_hvp` / `_grad` | `_hessian` / `_grad` |");
    say!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for n in [10, 100, 1000] {
        let x = start(n);
        let v: Vec<f64> = (0..n).map(|i| (i % 3) as f64 - 1.0).collect();
        let primal = seconds_per_call(|| {
            black_box(rosenbrock(black_box(&x)));
        });
        let grad = seconds_per_call(|| {
            black_box(rosenbrock_grad(black_box(&x)));
        });
        let hvp = seconds_per_call(|| {
            black_box(rosenbrock_hvp(black_box(&x), v.clone()));
        });
        let hessian = seconds_per_call(|| {
            black_box(rosenbrock_hessian(black_box(&x)));
        });
        say!(
            "| {n} | {} | {} | {} | {} | {:.1} | {:.0} |",
            duration(primal),
            duration(grad),
            duration(hvp),
            duration(hessian),
            hvp / grad,
            hessian / grad
        );
    }
    // The Hessian of the 2-d function at (1.5, 0.5), against the one worked out by hand.
    let (_, _, h) = rosenbrock_hessian(&[1.5, 0.5]);
    say!(
        "\n`rosenbrock_hessian(&[1.5, 0.5])` = {h:?}; by hand: [[1200 x0² − 400 x1 + 2, −400 x0], [−400 x0, 200]] = [[2502, -600], [-600, 200]]."
    );
    assert_eq!(h, vec![vec![2502.0, -600.0], vec![-600.0, 200.0]]);
}

// ---------------------------------------------------------------------------------------------------
// 6. Calls

/// One term of the Rosenbrock sum, as a function of its own.
#[differentiable]
fn term(a: f64, b: f64) -> f64 {
    let u = b - a * a;
    let v = 1.0 - a;
    100.0 * u * u + v * v
}

/// The Rosenbrock sum, calling `term`.
#[differentiable]
fn rosenbrock_calls(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += term(x[i], x[i + 1]);
    }
    s
}

/// The same sum with the term written inline.
#[differentiable]
fn rosenbrock_inline(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let u = x[i + 1] - x[i] * x[i];
        let v = 1.0 - x[i];
        s += 100.0 * u * u + v * v;
    }
    s
}

fn call_cost() {
    say!(
        "\n## 6. Calls: the Rosenbrock sum with its term inline or in a differentiable function\n"
    );
    say!("| n | written | f | `_grad` | `_grad` / f |");
    say!("| ---: | --- | ---: | ---: | ---: |");
    for n in [1000, 100_000] {
        let x = start(n);
        for (name, primal, gradient) in [
            (
                "inline",
                rosenbrock_inline as fn(&[f64]) -> f64,
                rosenbrock_inline_grad as fn(&[f64]) -> (f64, Vec<f64>),
            ),
            ("calls `term`", rosenbrock_calls, rosenbrock_calls_grad),
        ] {
            let p = seconds_per_call(|| {
                black_box(primal(black_box(&x)));
            });
            let g = seconds_per_call(|| {
                black_box(gradient(black_box(&x)));
            });
            say!(
                "| {n} | {name} | {} | {} | {:.2} |",
                duration(p),
                duration(g),
                g / p
            );
        }
        assert_eq!(rosenbrock_calls_grad(&x).1, rosenbrock_inline_grad(&x).1);
    }
}
