use autodiff::Differentiable;

#[derive(Differentiable)]
#[no_grad]
struct Params {
    w: Vec<f64>,
    #[no_grad(always)]
    steps: usize,
}

fn main() {}
