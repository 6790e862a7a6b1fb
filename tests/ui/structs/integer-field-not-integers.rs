use autodiff::{differentiable, Differentiable};
use std::collections::VecDeque;

// `x[p.queue[k]]` reads an element of `queue` as an index, so the field is taken for a constant array of
// integers or flags (a `Vec`, an array or a slice of them); a `VecDeque` is not one: an error at the
// field, never a gradient left out.
#[derive(Clone, Debug, Differentiable)]
pub struct Model {
    pub w: Vec<f64>,
    #[no_grad]
    pub queue: VecDeque<usize>,
}

#[differentiable]
fn predict(p: &Model, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..p.w.len() {
        s += p.w[k] * x[p.queue[k]];
    }
    s
}

fn main() {}
