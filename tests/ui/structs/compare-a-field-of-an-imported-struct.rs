use autodiff::differentiable;
use model::*;

// The struct is declared in another module, imported by a glob (a `use` by name is followed):
// the macro cannot see that `act` is a `#[no_grad]` enum, and takes it for a float of the struct. `==`,
// `!=` and `if let` on it get the error of `match` (match-on-a-field-of-an-imported-struct.rs), not rustc's
// E0308 inside the generated code.
mod model {
    use autodiff::Differentiable;

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Act {
        Tanh,
        LeakyRelu(f64),
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer {
        pub w: Vec<f64>,
        pub b: f64,
        #[no_grad]
        pub act: Act,
    }
}

#[differentiable(wrt(p))]
pub fn equal(p: &Layer, x: f64) -> f64 {
    let z = p.b + p.w[0] * x;
    if p.act == Act::Tanh {
        z.tanh()
    } else {
        z
    }
}

#[differentiable(wrt(p))]
pub fn not_equal(p: &Layer, x: f64) -> f64 {
    let z = p.b + p.w[0] * x;
    if p.act != Act::LeakyRelu(0.1) {
        z.tanh()
    } else {
        z
    }
}

#[differentiable(wrt(p))]
pub fn if_let(p: &Layer, x: f64) -> f64 {
    let z = p.b + p.w[0] * x;
    if let Act::Tanh = p.act {
        z.tanh()
    } else {
        z
    }
}

fn main() {}
