use autodiff::differentiable;

// `.step_by(k)` on a slice's iterator, and `.rev()` on its windows: supported on ranges only (`.rev()`
// also on slice iterators), and the error says to iterate over indexes.
#[differentiable]
fn every_other(x: &[f64]) -> f64 {
    x.iter().skip(1).step_by(2).sum::<f64>()
}

#[differentiable]
fn windows_backwards(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2).rev() {
        s = s * 0.5 + w[0] * w[1];
    }
    s
}

fn main() {
    let _ = every_other_grad(&[1.0, 2.0]);
    let _ = windows_backwards_grad(&[1.0, 2.0]);
}
