// `order = K` on a function of a generic parameter struct reads its fields; a struct, or a struct field,
// passed on whole to a call is not supported there yet (the error says what to write). (For structs of
// `f64`s it is: tests/struct_calls_higher.rs.)
use autodiff::{differentiable, Differentiable, Float};

#[derive(Clone, Differentiable)]
struct Line<T: Float> {
    slope: T,
    offset: T,
}

#[differentiable]
fn at<T: Float>(l: &Line<T>, x: T) -> T {
    l.slope * x + l.offset
}

#[differentiable(order = 2)]
fn squared<T: Float>(l: &Line<T>, x: T) -> T {
    let y = at(l, x);
    y * y
}

fn main() {}
