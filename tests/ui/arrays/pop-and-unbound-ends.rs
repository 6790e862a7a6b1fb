use autodiff::differentiable;

// `s.pop()` of a local `Vec` is supported unwrapped, with a default (`unwrap_or(d)`), tested by `if let`,
// `while let` or `let .. else`, or as a statement; here its `Option` is used otherwise
// (`unwrap_or_default`). And `.last()`/`.first()` are refused of a slice that is not named or a sub-slice of a
// named one (`x[1..]`, `x[1..x.len() - 1]` work: tests/gaps29.rs), unwrapped or with a default.
// (`m[i + 1].iter().copied().max_by(..).unwrap()`, refused here before, works: tests/chains30.rs.)
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
fn last_or_first(m: &[Vec<f64>], i: usize) -> f64 {
    m[i + 1][1..].last().copied().unwrap_or(0.0) + *m[i + 1].first().unwrap()
}

fn main() {
    let _ = top_grad(&[1.0, 2.0]);
    let _ = last_or_first_grad(&[vec![1.0, 2.0]], 0);
}
