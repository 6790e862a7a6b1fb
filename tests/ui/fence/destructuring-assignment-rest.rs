use autodiff::differentiable;

// Destructuring assignments are rewritten into a `let` and assignments (`sugar.rs`), but not one with a
// rest `..`, which keeps its error.
#[differentiable]
fn rest(a: f64, b: f64) -> f64 {
    let mut p = a;
    (p, ..) = (b * b, a, b);
    p
}

fn main() {}
