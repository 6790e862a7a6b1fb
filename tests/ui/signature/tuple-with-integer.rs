use autodiff::differentiable;

// A tuple holding an array and an integer: the integer is no part a tuple parameter may have.
#[differentiable]
fn f(x: f64, p: (Vec<f64>, usize)) -> f64 {
    x * p.0[p.1]
}

// A tuple of floats and an integer.
#[differentiable]
fn g(x: f64, p: (f64, usize)) -> f64 {
    x * p.0
}

// A tuple parameter holding an array, shadowed in the body: its parts could not be followed.
#[differentiable]
fn h(p: ([f64; 2], f64)) -> f64 {
    let p = p.0[0] * p.1;
    p * p
}

fn main() {}
