use autodiff::{differentiable, Differentiable};

// A `#[no_grad]` field of integers whose elements are read only as numbers (`p.data[1] as f64`): nothing in
// the syntax says it holds no floats (a cast is no sign: an `f32` field is cast too), so it is read through
// the values view of floats, which has no window for it: the error says what is recognised instead (an
// element read as an index, a bound, a condition, compared with an integer literal; `.len()` alone).
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
