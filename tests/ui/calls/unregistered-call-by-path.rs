// The same for a call written with a path, of a module standing in for an outside crate and of a real
// one (`libm`, a dev-dependency): no registration of these functions is in scope.
use autodiff::{differentiable, gradient_of};

mod outside {
    pub fn softsign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }
}

// Registered, but not the functions called below.
#[gradient_of(libm::erf)]
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp()
}

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    outside::softsign(x) * libm::erfc(y) + libm::erf(x)
}

fn main() {}
