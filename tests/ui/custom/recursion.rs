use autodiff::differentiable;

#[differentiable]
fn halve_until_small(x: f64) -> f64 {
    if x > 1.0 {
        halve_until_small(x / 2.0)
    } else {
        x
    }
}

fn main() {}
