use autodiff::differentiable;

// `copy_from_slice` lowers to a loop on a name, a row or a half-open sub-slice (tests/slice_writes.rs);
// an inclusive range as the receiver stays an error that says what to write.
#[differentiable]
fn heat(u0: &[f64], alpha: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u[1..=n - 2].copy_from_slice(&next[1..n - 1]);
    }
    u.iter().sum()
}

fn main() {
    let _ = heat_grad(&[1.0, 2.0, 3.0], 0.1);
}
