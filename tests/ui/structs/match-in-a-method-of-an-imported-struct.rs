use autodiff::differentiable;
use model::*;

// A method of a struct imported by a glob (a `use` by name of a module of this file is followed:
// tests/structs42.rs), in an `impl` outside the struct's module: `match` on its `#[no_grad]` enum field.
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

impl Layer {
    #[differentiable(wrt(self))]
    pub fn forward(&self, x: f64) -> f64 {
        let z = self.b + self.w[0] * x;
        match self.act {
            Act::Tanh => z.tanh(),
            Act::Relu => z.max(0.0),
        }
    }

    #[differentiable(wrt(self), order = 2)]
    pub fn forward2(&self, x: f64) -> f64 {
        let z = self.b + self.w[0] * x;
        match self.act {
            Act::Tanh => z.tanh(),
            Act::Relu => z * z,
        }
    }
}

fn main() {}
