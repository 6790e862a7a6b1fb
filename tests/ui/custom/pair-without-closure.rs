use autodiff::custom_gradient;

#[custom_gradient]
fn scaled(x: f64) -> (f64, f64) {
    (2.0 * x, 2.0)
}

fn main() {}
