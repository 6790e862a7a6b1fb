// A function without `order = K` that passes a scalar field of its parameter struct to a call
// (`sq(self.b)`, `sq(q.b)`) has no generic copy over its struct: the field may hold an integer or a
// float, which the syntax does not tell apart. An `order = K` caller that passes it the struct gets one
// error at its call of each, a method and a free function (six of rustc's missing `__energy_whole` items
// before).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Lin {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

impl Lin {
    #[differentiable(wrt(self))]
    fn energy(&self, x: f64) -> f64 {
        sq(self.b) * x + self.w[0]
    }
}

#[differentiable]
fn free_energy(q: &Lin, x: f64) -> f64 {
    sq(q.b) * x + q.w[0]
}

#[differentiable(order = 2)]
fn outer(p: &Lin, x: f64) -> f64 {
    Lin::energy(p, x) * x
}

#[differentiable(order = 2)]
fn free_outer(p: &Lin, x: f64) -> f64 {
    free_energy(p, x) * x
}

fn main() {}
