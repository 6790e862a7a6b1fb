use autodiff::custom_gradient;

#[custom_gradient]
fn scaled(x: f64) -> (f64, impl Fn(f32) -> f64) {
    (2.0 * x, move |dy: f32| f64::from(dy) * 2.0)
}

fn main() {}
