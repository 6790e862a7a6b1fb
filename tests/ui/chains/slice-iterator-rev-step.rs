use autodiff::differentiable;

// `.rev()` after `.enumerate()` and `.step_by(k)` on a slice's iterator: supported on ranges only, and the
// error says to iterate over indexes.
#[differentiable]
fn backwards(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate().rev() {
        s = s * 0.5 + v * i as f64;
    }
    s
}

#[differentiable]
fn every_other(x: &[f64]) -> f64 {
    x.iter().skip(1).step_by(2).sum::<f64>()
}

fn main() {
    let _ = backwards_grad(&[1.0, 2.0]);
    let _ = every_other_grad(&[1.0, 2.0]);
}
