use autodiff::differentiable;

pub struct Pair {
    a: f64,
    b: f64,
}

// A struct pattern: name the parameter and read its fields in the body.
#[differentiable]
fn f(Pair { a, b }: Pair) -> f64 {
    a * b
}

// A tuple pattern nested in a tuple pattern: tuple parameters hold floats and arrays, not tuples.
#[differentiable]
fn g(((a, b), c): ((f64, f64), f64)) -> f64 {
    a * b * c
}

fn main() {}
