use autodiff::differentiable;

// `match` on a tuple of integers: each tuple pattern gets the error, which lists the patterns supported.
#[differentiable]
fn by_parity(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += match (i % 2, i % 3) {
            (0, 0) => x[i].sin(),
            _ => 2.0 * x[i],
        };
    }
    s
}

fn main() {
    let _ = by_parity_grad(&[1.0, 2.0]);
}
