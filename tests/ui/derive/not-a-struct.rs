use autodiff::Differentiable;

#[derive(Differentiable)]
enum Params {
    A(f64),
}

fn main() {}
