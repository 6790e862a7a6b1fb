use autodiff::gradient_of;

#[gradient_of("libm::erf")]
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp()
}

fn main() {}
