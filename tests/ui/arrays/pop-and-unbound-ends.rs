use autodiff::differentiable;

// `s.pop()` of a local `Vec` is supported unwrapped, with a default (`unwrap_or(d)`), tested by `if let`,
// `while let` or `let .. else`, or as a statement; here its `Option` is used otherwise
// (`unwrap_or_default`). And `.last()`/`.first()` are refused of a slice that is not named or a sub-slice of a
// named one with bounds that are names or literals (`x[1..]` works), unwrapped or with a default.
#[differentiable]
fn top(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    for &v in x {
        s.push(v * v);
    }
    let t = s.pop().unwrap_or_default();
    t * 3.0
}

#[differentiable]
fn last_or_first(x: &[f64]) -> f64 {
    x[1..x.len() - 1].last().copied().unwrap_or(0.0) + *x[1..x.len()].first().unwrap()
}

fn main() {
    let _ = top_grad(&[1.0, 2.0]);
    let _ = last_or_first_grad(&[1.0, 2.0]);
}
