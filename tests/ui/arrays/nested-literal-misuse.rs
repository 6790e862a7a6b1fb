// A nested array made in the body is a matrix (`[[a, b], [c, d]]`), read and written `m[i][j]`, passed on
// by its rows or whole (tests/nested_array_literals.rs); nested deeper (`[[[a, b], [c, d]]]`, which is read
// `t[i][j][k]`), passed whole to a call it is an error saying to pass its rows, and a literal whose floats
// are at different depths is an error saying what to write instead; so is a nested array written in a
// call, by reference or by value.
use autodiff::differentiable;

#[differentiable]
fn total(m: &[[f64; 2]; 2]) -> f64 {
    m[0][0] + m[1][1]
}

#[differentiable]
fn total3(m: &[[[f64; 2]; 2]; 1]) -> f64 {
    m[0][0][0] + m[0][1][1]
}

#[differentiable]
fn deeper(x: &[f64]) -> f64 {
    let t = [[[x[0], x[1]], [x[2], x[3]]]];
    total3(&t) + t[0][1][0]
}

#[differentiable]
fn by_value(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] * m[1][1]
}

#[differentiable]
fn written_in_calls(x: &[f64]) -> f64 {
    total(&[[x[0], x[1]], [x[2], x[3]]]) + by_value([[x[0], 1.0], [2.0, x[1]]])
}

#[differentiable]
fn ragged_depth(x: &[f64]) -> f64 {
    let t = [[[x[0], x[1]]], [x[2], x[3]]];
    x[0] * 2.0 + t.len() as f64
}

fn main() {}
