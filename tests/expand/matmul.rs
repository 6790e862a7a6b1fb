// A matrix product written as loops over flat row-major slices, and a nested expression (the logistic
// map iterated): what the macro writes for them is shown in docs/coming-from-tensorflow-and-jax.md.
use autodiff::differentiable;

#[differentiable]
fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for p in 0..k {
                s += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
    c
}

#[differentiable]
fn logistic(x: f64, levels: usize) -> f64 {
    let mut l = x;
    for _ in 0..levels {
        l = 4.0 * l * (1.0 - l);
    }
    l
}
