use autodiff::differentiable;

// Writes through `&mut` elements become counted loops for `.iter_mut()`, `&mut v`, sub-slices,
// `.enumerate()` and `.zip(..)` (tests/forms20.rs); `.rev()` stays an error that says what to write.
#[differentiable]
fn reversed(xs: &[f64], out: &mut [f64]) {
    for (o, x) in out.iter_mut().rev().zip(xs) {
        *o = x * x;
    }
}

fn main() {
    let _ = reversed_vjp(&[1.0], &mut [0.0], &[1.0]);
}
