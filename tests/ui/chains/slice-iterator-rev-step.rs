use autodiff::differentiable;

// `.step_by(k).rev()` on a slice's iterator (which starts from the last element stepped to, not the last
// element), and `.rev()` on its windows: the errors say what to write instead.
#[differentiable]
fn every_other(x: &[f64]) -> f64 {
    x.iter().skip(1).step_by(2).rev().sum::<f64>()
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
