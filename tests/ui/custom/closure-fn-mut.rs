use autodiff::custom_gradient;

#[custom_gradient]
fn scaled(x: f64) -> (f64, impl FnMut(f64) -> f64) {
    (2.0 * x, move |dy| dy * 2.0)
}

fn main() {}
