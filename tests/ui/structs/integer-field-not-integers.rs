use autodiff::{differentiable, Differentiable};
use std::collections::BTreeMap;

// `x[p.lookup[&k]]` reads an element of `lookup` as an index, so the field is taken for a constant array
// of integers or flags; a map is not one: an error at the field, never a gradient left out.
#[derive(Clone, Debug, Differentiable)]
pub struct Model {
    pub w: Vec<f64>,
    #[no_grad]
    pub lookup: BTreeMap<usize, usize>,
}

#[differentiable]
fn predict(p: &Model, x: &[f64]) -> f64 {
    let k = 0;
    p.w[0] * x[p.lookup[&k]]
}

fn main() {}
