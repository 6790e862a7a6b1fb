use autodiff::differentiable;

// A `let` whose value is an error (`.split_at()` of a sub-slice, `.try_into()`): the names it binds report
// nothing more where they are indexed or iterated, so the mistake gives one error.
#[differentiable]
fn halves(x: &[f64]) -> f64 {
    let (a, b) = x[1..].split_at(2);
    a[0] * b[0] + a.iter().zip(b.iter()).map(|(p, q)| p * q).sum::<f64>()
}

#[differentiable]
fn pair(x: &[f64]) -> f64 {
    let v: [f64; 2] = x[..2].try_into().unwrap();
    let mut s = v[0] * v[1];
    for w in v {
        s += w;
    }
    s
}

fn main() {
    let _ = halves_grad(&[1.0, 2.0, 3.0, 4.0]);
    let _ = pair_grad(&[1.0, 2.0]);
}
