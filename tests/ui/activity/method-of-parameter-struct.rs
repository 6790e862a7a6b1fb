// A parameter struct taken by value: whether `energy` takes `&self` or `self` is not visible to the macro,
// so `s.energy(x)` is not written as a call by the method's path for the user (by reference, `s: &Springs`,
// it is: tests/method_calls33.rs).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Springs {
    pub k: f64,
}

impl Springs {
    #[differentiable(wrt(self))]
    pub fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

#[differentiable(wrt(s))]
fn total(s: Springs, x: f64) -> f64 {
    s.energy(x) + s.k * s.k
}

fn main() {}
