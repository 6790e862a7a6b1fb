use autodiff::custom_gradient;

#[custom_gradient]
struct Scaled(f64);

fn main() {}
