use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let wrapped = x.rem_euclid(2.0);
    wrapped + x.fract()
}

fn main() {}
