use autodiff::differentiable;

// A closure given to a slice method that is no iterator adaptor (a table lookup by `partition_point`):
// the macro cannot inline it; a binary search written as a `while` loop is supported.
#[differentiable]
fn lookup(x: f64, knots: &[f64], values: &[f64]) -> f64 {
    let i = knots.partition_point(|&k| k <= x).clamp(1, knots.len() - 1);
    let t = (x - knots[i - 1]) / (knots[i] - knots[i - 1]);
    values[i - 1] * (1.0 - t) + values[i] * t
}

fn main() {}
