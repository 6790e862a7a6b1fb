use autodiff::differentiable;

// A float returned with an integer beside it (the position of the largest element): the integer has no
// derivative, and the error, at it, says to write it into a `&mut [usize]` parameter (tests/rejected24.rs).
#[differentiable]
fn largest(x: &[f64]) -> (f64, usize) {
    let mut k = 0;
    for i in 0..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    (x[k] * x[k], k)
}

fn main() {}
