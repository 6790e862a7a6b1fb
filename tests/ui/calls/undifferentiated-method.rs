// Calls with a differentiated argument of a method, an associated function and a method of a parameter
// struct that have no derivative: one error at each call, which says what to write instead.
use autodiff::{differentiable, Differentiable};

struct S {
    k: f64,
}

impl S {
    fn plain(&self, x: f64) -> f64 {
        self.k * x
    }

    fn plain2(x: f64) -> f64 {
        x * x
    }

    #[differentiable]
    fn first(&self, x: f64) -> f64 {
        self.plain(x) * x
    }

    #[differentiable]
    fn second(x: f64) -> f64 {
        Self::plain2(x) + x
    }
}

#[derive(Differentiable)]
struct P {
    a: f64,
}

impl P {
    fn helper(&self, x: f64) -> f64 {
        self.a * x
    }
}

#[differentiable]
fn third(p: &P, x: f64) -> f64 {
    P::helper(p, x) + x
}

fn main() {}
