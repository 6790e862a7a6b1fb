use autodiff::Differentiable;

#[derive(Differentiable)]
struct Params {
    w: Vec<f64>,
    steps: usize,
    name: String,
}

fn main() {}
