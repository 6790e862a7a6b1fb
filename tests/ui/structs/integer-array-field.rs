use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Model {
    pub w: Vec<f64>,
    #[no_grad]
    pub data: Vec<usize>,
}

#[differentiable]
fn predict(p: &Model, x: f64) -> f64 {
    p.w[0] * x * p.data[1] as f64
}

fn main() {}
