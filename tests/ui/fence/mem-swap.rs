use autodiff::differentiable;

// `std::mem::swap` of two names is supported (tests/rejected24.rs); of other places, such as elements of
// two arrays, the error says how to swap them with a tuple `let`.
#[differentiable]
fn swapped(x: &[f64], y: f64) -> f64 {
    let mut a = x.to_vec();
    let mut b = vec![y; 2];
    std::mem::swap(&mut a[0], &mut b[1]);
    a[0] * b[1].sin()
}

// Of two reference parameters it swaps the references, not the values: an error too.
#[differentiable]
fn swapped_inputs<'a>(mut p: &'a [f64], mut q: &'a [f64]) -> f64 {
    std::mem::swap(&mut p, &mut q);
    p[0] * 2.0 + q[0]
}

fn main() {
    let _ = swapped_grad(&[1.0], 2.0);
}
