use autodiff::custom_gradient;

#[custom_gradient]
fn product(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    (x * y, move |dy: f64| dy * y)
}

fn main() {}
