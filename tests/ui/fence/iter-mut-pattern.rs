use autodiff::differentiable;

// `&mut o` copies the element out: nothing is written. Bind a name and write through it.
#[differentiable]
fn by_value(xs: &[f64], out: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for (&mut o, x) in out.iter_mut().zip(xs) {
        s += o * x;
    }
    s
}

fn main() {
    let _ = by_value_grad(&[1.0], &mut [0.0]);
}
