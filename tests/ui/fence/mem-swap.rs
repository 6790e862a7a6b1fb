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
fn swapped_outputs(x: f64, mut p: &mut [f64], mut q: &mut [f64]) {
    p[0] = x;
    q[0] = 2.0 * x;
    std::mem::swap(&mut p, &mut q);
    p[0] *= x;
}

fn main() {
    let _ = swapped_grad(&[1.0], 2.0);
}
