// A chain ending in `.reduce(f)` unwrapped: a loop keeping the element so far (chains.rs, `selection`).
use autodiff::differentiable;

#[differentiable]
fn logsumexp(x: &[f64]) -> f64 {
    let m = x.iter().copied().reduce(f64::max).unwrap();
    m + x.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}
