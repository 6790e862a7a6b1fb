//! The softmax-regression loss of `examples/digits.rs` and `examples/argmin.rs` (an `f64` function with
//! `order = 2`, integer labels used as indices, a running maximum): its generated gradient against
//! central differences of the loss, and its generated Hessian (argmin's Newton-CG runs on it) against
//! central differences of the generated gradient, on random weights and images.

mod common;

#[path = "../examples/shared/digits_model.rs"]
mod digits_model;

use common::{assert_close, config};
use digits_model::{loss, loss_grad, loss_hessian, D, K};
use proptest::prelude::*;

/// Weights, three images and their labels, from one seed.
fn problem(seed: u64) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let w = (0..K * D + K).map(|_| next() - 0.5).collect();
    let x = (0..3 * D).map(|_| next()).collect();
    let y = (0..3).map(|_| (next() * K as f64) as usize % K).collect();
    (w, x, y)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..config() })]

    #[test]
    fn gradient_and_hessian_match_central_differences(seed in any::<u64>()) {
        let (w, x, y) = problem(seed);
        let lambda = 0.01;
        let h = 1e-5;
        let (value, grad) = loss_grad(&w, &x, &y, lambda);
        assert_close(value, loss(&w, &x, &y, lambda), 1e-12, "value");
        let (_, grad2, hessian) = loss_hessian(&w, &x, &y, lambda);
        assert_eq!(hessian.len(), w.len());
        for i in 0..w.len() {
            let (mut up, mut down) = (w.clone(), w.clone());
            up[i] += h;
            down[i] -= h;
            let fd = (loss(&up, &x, &y, lambda) - loss(&down, &x, &y, lambda)) / (2.0 * h);
            assert_close(grad[i], fd, 1e-6, "gradient");
            assert_close(grad2[i], grad[i], 1e-12, "gradient of loss_hessian");
            let (g_up, g_down) = (loss_grad(&up, &x, &y, lambda).1, loss_grad(&down, &x, &y, lambda).1);
            for j in 0..w.len() {
                let fd = (g_up[j] - g_down[j]) / (2.0 * h);
                assert_close(hessian[j][i], fd, 1e-5, "Hessian");
            }
        }
    }
}
