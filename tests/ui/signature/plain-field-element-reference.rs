use autodiff::{differentiable, Differentiable};

// `&p.w[i]` of a field holding a row of floats (`Vec<f64>`): a reference to an element, an error at it.
// (`&p.w[i]` of a matrix field, `Vec<Vec<f64>>`, is a row: tests/structs.rs.) The macro sees the field is
// no matrix where it is also read by one index (`p.w[h] * x`) or the reference is dereferenced (`*r`).
#[derive(Clone, Debug, Differentiable)]
pub struct Layer {
    pub w: Vec<f64>,
    pub c: f64,
}

#[differentiable]
pub fn dereferenced(p: &Layer, x: f64) -> f64 {
    let mut s = 0.0;
    for h in 0..p.w.len() {
        let r = &p.w[h];
        s += *r * x * p.c;
    }
    s
}

#[differentiable]
pub fn read_by_index(p: &Layer, x: f64) -> f64 {
    let mut s = 0.0;
    for h in 0..p.w.len() {
        let _r = &p.w[h];
        s += p.w[h] * x;
    }
    s
}

fn main() {}
