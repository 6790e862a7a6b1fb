use autodiff::differentiable;

#[differentiable]
pub fn lotka_volterra(p: &[f64], u: f64, v: f64) -> (f64, f64) {
    (p[0] * u - p[1] * u * v, p[2] * u * v - p[3] * v)
}

#[differentiable]
pub fn rk4(p: &[f64], steps: usize) -> f64 {
    let h = 0.01;
    let mut u = p[4];
    let mut v = p[5];
    for _ in 0..steps {
        let (k1u, k1v) = lotka_volterra(p, u, v);
        let (k2u, k2v) = lotka_volterra(p, u + 0.5 * h * k1u, v + 0.5 * h * k1v);
        let (k3u, k3v) = lotka_volterra(p, u + 0.5 * h * k2u, v + 0.5 * h * k2v);
        let (k4u, k4v) = lotka_volterra(p, u + h * k3u, v + h * k3v);
        u += h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    u + v
}
