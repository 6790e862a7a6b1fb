use autodiff::differentiable;

// A `return` in a `.for_each(..)` closure leaves the closure only: one error, with what to write.
#[differentiable]
fn returns_early(xs: &[f64], out: &mut [f64]) {
    out.iter_mut().zip(xs).for_each(|(o, x)| {
        if *x < 0.0 {
            return;
        }
        *o = x.sqrt();
    });
}

fn main() {
    let _ = returns_early_vjp(&[1.0], &mut [0.0], &[1.0]);
}
