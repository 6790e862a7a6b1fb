use autodiff::custom_gradient;

#[custom_gradient]
fn scaled(x: f64) -> (f64, impl Fn(f64, f64) -> f64) {
    (2.0 * x, move |dy: f64, _: f64| dy * 2.0)
}

fn main() {}
