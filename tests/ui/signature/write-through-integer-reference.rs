// Enzyme's rwrloop.c sets its `int *N` after the loop. An integer `&mut` parameter written through `*n`
// is not an output; the error says to take it as a slice of one element, which works.
use autodiff::differentiable;

#[differentiable]
fn rwrloop(a: &mut [f64], n: &mut usize) -> f64 {
    let mut sum = 0.0;
    for j in 0..*n {
        sum += a[j] * a[j];
        a[j] = 0.0;
    }
    *n = 7;
    sum
}

fn main() {}
