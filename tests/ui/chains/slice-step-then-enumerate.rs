use autodiff::differentiable;

// `.enumerate()` after `.step_by(k)` of a slice's iterator counts the elements kept (0, 1, 2, ..), which
// the loop over indexes would not give: an error saying to enumerate first.
#[differentiable]
fn weighted(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().step_by(2).enumerate() {
        s += v * i as f64;
    }
    s
}

fn main() {
    let _ = weighted_grad(&[1.0, 2.0]);
}
