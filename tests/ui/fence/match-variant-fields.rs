use autodiff::differentiable;

#[derive(Clone, Copy)]
pub enum Act {
    Tanh,
    LeakyRelu(f64),
    Wrapped(Option<f64>),
}

// A variant's fields may be bound by name, or left by `_` and `..`: not by nested patterns, `ref`, `mut`
// or literals.
#[differentiable]
fn f(x: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => x.tanh(),
        Act::LeakyRelu(mut s) => {
            s += 1.0;
            s * x
        }
        Act::Wrapped(Some(c)) => c * x,
        Act::Wrapped(None) => x,
    }
}

#[differentiable]
fn g(x: f64, act: Act) -> f64 {
    match act {
        Act::LeakyRelu(0.5) => x,
        Act::LeakyRelu(ref s) => *s * x,
        _ => x,
    }
}

fn main() {}
