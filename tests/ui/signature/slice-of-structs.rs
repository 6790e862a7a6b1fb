// A slice of structs (`&[Particle]`) whose elements the body reads: the macro reads no fields of
// elements, so one error at the parameter says what to write instead (before, an error at each field
// read said "named fields are not supported", which did not say why). A slice of structs only measured
// or passed on whole is passed through as data.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Particle {
    pub x: f64,
    pub v: f64,
}

#[differentiable]
fn energy(ps: &[Particle], k: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..ps.len() {
        e += 0.5 * ps[i].v * ps[i].v + k * ps[i].x * ps[i].x;
    }
    e
}

#[differentiable]
fn kinetic(ps: Vec<Particle>) -> f64 {
    let mut e = 0.0;
    for p in ps.iter() {
        e += p.v * p.v;
    }
    e
}

#[differentiable]
fn counted(ps: &[Particle], k: f64) -> f64 {
    k * ps.len() as f64
}

fn main() {
    let _ = counted_grad(&[], 1.0);
}
