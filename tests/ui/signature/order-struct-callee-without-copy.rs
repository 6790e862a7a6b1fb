// A function at `order = K` that passes a struct on whole to a function without `order = K` calls the
// callee's generic copy over the struct's values view, made only where it surely compiles: here the
// callee's body rounds through `f32`, a second float type, and the one error says to give it `order = 2`.
// (A body iterating the field by reference has its copy: tests/probe_programs18.rs, `struct_callee`.)
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Weights {
    w: Vec<f64>,
}

#[differentiable]
fn total(p: &Weights, x: f64) -> f64 {
    let mut s = 0.0;
    for v in p.w.iter() {
        s += v * x;
    }
    (s as f32) as f64
}

#[differentiable(order = 2)]
fn squared(p: &Weights, x: f64) -> f64 {
    let y = total(p, x);
    y * y
}

fn main() {}
