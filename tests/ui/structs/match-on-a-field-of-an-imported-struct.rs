use autodiff::differentiable;
use model::*;

// The struct is declared in another module, imported by a glob (a `use` by name of a module of this file
// is followed: tests/structs42.rs): the macro cannot see that `act` is a `#[no_grad]` enum (as it does
// where this file declares the struct), so it takes the field for a float of the struct. An error at
// the `match` says what to do, not a gradient of an enum. (Declared in the same module, the same function
// compiles: tests/nograd41.rs.)
mod model {
    use autodiff::Differentiable;

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Act {
        Tanh,
        Relu,
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
pub fn forward(p: &Layer, x: &[f64]) -> f64 {
    let mut z = p.b;
    for i in 0..x.len() {
        z += p.w[i] * x[i];
    }
    match p.act {
        Act::Tanh => z.tanh(),
        Act::Relu => z.max(0.0),
    }
}

fn main() {}
