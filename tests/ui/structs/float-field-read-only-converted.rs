use autodiff::{differentiable, Differentiable};

// A field whose elements are read only converted by `as f64` is taken for integers (a float field needs no
// `as`): an `f32` field read so is one error at the field, never a gradient left out.
#[derive(Clone, Debug, Differentiable)]
pub struct Model {
    pub w: Vec<f64>,
    pub scale: Vec<f32>,
}

#[differentiable]
fn predict(p: &Model, x: f64) -> f64 {
    p.w[0] * x * p.scale[1] as f64
}

fn main() {}
