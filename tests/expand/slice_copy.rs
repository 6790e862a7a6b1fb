use autodiff::differentiable;

// A sub-slice copied into a sub-slice (`slice_writes.rs` desugars it into a loop of element writes that
// reads the source in place, `x[1 + k]`, its bounds checked once before the loop).
#[differentiable]
fn placed(x: &[f64], y: &[f64]) -> f64 {
    let mut out = vec![0.0; 8];
    out[2..6].copy_from_slice(&x[1..5]);
    out[0..2].copy_from_slice(y);
    let mut s = 0.0;
    for i in 0..8 {
        s += out[i] * out[i] * (i as f64 + 1.0);
    }
    s
}

// Into an output parameter: the sweeps read `x[1 + k]` in place and allocate nothing.
#[differentiable]
fn into_output(x: &[f64], out: &mut [f64]) {
    out[2..6].copy_from_slice(&x[1..5]);
}
