// A method with `order = K` that keeps `self` constant and passes it to a free function of the struct
// with `order = K` (which differentiates its struct): the method reaches the callee's generic copy, which a
// function of a parameter struct with `order = K` does not have (callers passing the struct on whole reach
// its hidden function over the struct's values). One error at the call, saying to give the method
// `wrt(self, ..)`; that form works (tests/structs34.rs).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Cfg {
    pub k: f64,
    pub w: Vec<f64>,
}

#[differentiable(order = 2)]
fn reads_fields(c: &Cfg, x: f64) -> f64 {
    c.k * x + c.w[0] * x * x
}

impl Cfg {
    #[differentiable(order = 2)]
    fn energy(&self, x: f64) -> f64 {
        reads_fields(self, x) * x
    }
}

fn main() {}
