use autodiff::differentiable;

static mut K: usize = 0;

fn bump() {
    unsafe { K += 1 }
}

// A `static mut` index may change without the body naming it (`bump()`): `out[K]` after the call is
// another element, whose incoming value the body reads. Rejected, as every `unsafe` block is.
#[differentiable]
fn f(x: &[f64], out: &mut [f64]) -> f64 {
    unsafe { out[K] = x[0] * x[0] };
    bump();
    unsafe { out[K] * x[1] }
}

fn main() {}
