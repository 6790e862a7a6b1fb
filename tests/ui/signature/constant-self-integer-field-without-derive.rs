use autodiff::differentiable;

// A constant `self` whose integer field a method with `order = K` reads: its type comes from the struct's
// `#[derive(Differentiable)]` (at first order the field is read as it is, without it), or from the
// struct's declaration where the attribute's module declares it as data or imports it by name (`use
// shapes::Plain;`, tests/structs42.rs); here it is imported by a glob, which the macro does not follow. The
// error says to add the derive, or to pass the field as a parameter.
mod shapes {
    pub struct Plain {
        pub n: usize,
        pub k: f64,
    }
}

use shapes::*;

impl Plain {
    #[differentiable(order = 2, wrt(x))]
    pub fn energy(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..self.n {
            s += self.k * x[i] * x[i];
        }
        s
    }

    #[differentiable(wrt(x))]
    pub fn first_order(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..self.n {
            s += self.k * x[i] * x[i];
        }
        s
    }
}

fn main() {
    let p = Plain { n: 2, k: 1.5 };
    let _ = p.energy_hessian(&[1.0, 2.0]);
    let _ = p.first_order_grad(&[1.0, 2.0]);
}
