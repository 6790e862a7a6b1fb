// `order = K` on a function of a parameter struct reads its fields; a struct, or a struct field, passed on
// whole to a call is not supported there yet (the error says what to write).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Line {
    slope: f64,
    offset: f64,
}

#[differentiable]
fn at(l: &Line, x: f64) -> f64 {
    l.slope * x + l.offset
}

#[differentiable(order = 2)]
fn squared(l: &Line, x: f64) -> f64 {
    let y = at(l, x);
    y * y
}

fn main() {}
