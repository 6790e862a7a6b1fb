use autodiff::differentiable;

#[differentiable]
fn f(xs: &mut [f64], y: &mut f64) -> f64 {
    xs[0] * *y
}

fn main() {}
