// A plain helper (no derivatives) returning an integer, called with a differentiated argument: where the body
// uses the result as an integer (an index `x[k]`, a range's bound, `let k: usize = ..`) it is a constant and
// the helper is called as written (tests/order25.rs); read otherwise (`as f64`), the macro cannot tell it from
// a float, and the error says to give its type.
use autodiff::differentiable;

fn count_above(x: &[f64], t: f64) -> usize {
    x.iter().filter(|v| **v > t).count()
}

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let n = count_above(x, 0.5) as f64;
    x[0] * n
}

fn main() {}
