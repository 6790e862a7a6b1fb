use autodiff::differentiable;

#[differentiable]
fn f(x: f64, scale: Option<f64>) -> f64 {
    let Some(k) = scale else {
        return x;
    };
    k * x
}

fn main() {}
