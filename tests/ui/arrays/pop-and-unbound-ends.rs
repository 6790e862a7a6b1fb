use autodiff::differentiable;

// `s.pop()` of a local `Vec` is supported unwrapped, tested by `if let`/`while let` or as a statement;
// here its `Option` is used otherwise (`unwrap_or`). And `.last()`/`.first()` are refused where they are
// not unwrapped, or of a slice that is not named.
#[differentiable]
fn top(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    for &v in x {
        s.push(v * v);
    }
    let t = s.pop().unwrap_or(0.0);
    t * 3.0
}

#[differentiable]
fn last_or_zero(x: &[f64]) -> f64 {
    x.last().copied().unwrap_or(0.0) + *x[1..].first().unwrap()
}

fn main() {
    let _ = top_grad(&[1.0, 2.0]);
    let _ = last_or_zero_grad(&[1.0, 2.0]);
}
