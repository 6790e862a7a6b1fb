use autodiff::differentiable;

// `match` on a tuple of integers is supported with a pattern per part (`(0, _)`); a rest `..` or a nested
// tuple is not: each such tuple pattern gets the error, which says what is supported.
#[differentiable]
fn by_parity(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += match (i % 2, (i % 3, i % 5)) {
            (0, ..) => x[i].sin(),
            (1, (0, _)) => x[i].cos(),
            _ => 2.0 * x[i],
        };
    }
    s
}

fn main() {
    let _ = by_parity_grad(&[1.0, 2.0]);
}
