use autodiff::differentiable;
#[differentiable(order = 2)]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += t * 100.0 * t + u * u;
    }
    s
}
