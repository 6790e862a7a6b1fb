// `#[custom_gradient]` and `#[gradient_of]` apply to free functions: on an associated function (found in
// an `impl` although it neither takes `self` nor names `Self`) each is one error at its name.
use autodiff::{custom_gradient, gradient_of};

fn cube(x: f64) -> f64 {
    x * x * x
}

struct Model;

impl Model {
    #[custom_gradient]
    fn softplus(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let e = x.exp();
        ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
    }

    #[gradient_of(cube)]
    fn cube_vjp(x: f64, dy: f64) -> f64 {
        dy * 3.0 * x * x
    }
}

fn main() {
    let _ = (Model::softplus(1.0), Model::cube_vjp(1.0, 1.0), cube(1.0));
}
