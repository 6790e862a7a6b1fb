use autodiff::differentiable;

/// A function with an output parameter: its companion takes the output's cotangent.
#[differentiable]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}

/// A call of it in a loop: the buffer `k` as the call found it is stored for the callee's adjoint.
#[differentiable]
fn euler(y0: &[f64], p: &[f64], h: f64, steps: usize) -> f64 {
    let mut y = y0.to_vec();
    let mut k = vec![0.0; 2];
    for _ in 0..steps {
        rhs(&y, p, &mut k);
        for i in 0..2 {
            y[i] += h * k[i];
        }
    }
    y[0] + y[1] * y[1]
}

#[differentiable]
fn rotate(t: f64, v: &[f64; 2], out: &mut [f64; 2]) {
    out[0] = t.cos() * v[0] - t.sin() * v[1];
    out[1] = t.sin() * v[0] + t.cos() * v[1];
}
