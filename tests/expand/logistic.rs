// Logistic regression over the rows of a data matrix, the form most models are written in: the rows
// `&xs[k]` are borrowed, in the forward sweep and again in the reverse one (nothing writes `xs`), the
// value of the call is stored, and `predict`'s companion runs its own reverse sweep (`wrt(w)`) when the
// caller lends it inactive data.
use autodiff::differentiable;

#[differentiable]
fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

#[differentiable(wrt(w))]
fn predict(w: &[f64], x: &[f64]) -> f64 {
    let mut z = 0.0;
    for j in 0..w.len() {
        z += w[j] * x[j];
    }
    sigmoid(z)
}

#[differentiable(wrt(w))]
fn logistic(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for k in 0..ys.len() {
        let p = predict(w, &xs[k]);
        loss -= ys[k] * p.ln() + (1.0 - ys[k]) * (1.0 - p).ln();
    }
    loss
}
