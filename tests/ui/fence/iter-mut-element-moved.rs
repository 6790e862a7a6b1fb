use autodiff::differentiable;

// A `&mut` element is written by index in the generated code: it is used only through `*o`.
#[differentiable]
fn passed_on(xs: &[f64], out: &mut [f64]) {
    for (o, x) in out.iter_mut().zip(xs) {
        let p = o;
        *p = x * 2.0;
    }
}

fn main() {
    let _ = passed_on_vjp(&[1.0], &mut [0.0], &[1.0]);
}
