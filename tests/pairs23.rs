//! repro
#![allow(clippy::needless_range_loop, clippy::ptr_arg)]
mod common;
use autodiff::differentiable;

#[differentiable]
fn weighted(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for k in 0..terms.len() {
        let (i, w) = terms[k];
        s += w * x[i] * x[i];
    }
    s
}

#[differentiable(order = 2)]
fn weighted2(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for k in 0..terms.len() {
        let (i, w) = terms[k];
        s += w * x[i] * x[i];
    }
    s
}

#[differentiable(order = 2)]
fn arr_pairs(x: &[f64], q: &[(f64, f64); 2]) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        let (a, b) = q[k];
        s += a * x[0] * x[1] + b * x[k];
    }
    s
}

#[differentiable(order = 2)]
fn iter_refs(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for (i, w) in terms.iter() {
        s += w * x[*i];
    }
    s
}

#[differentiable(order = 2)]
fn iter_amp(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for &(i, w) in terms.iter() {
        s += w * x[i] * x[i];
    }
    s
}

#[differentiable(order = 2)]
fn map_amp(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    terms.iter().map(|&(i, w)| w * x[i]).sum()
}

#[differentiable(order = 2)]
fn map_refs(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    terms.iter().map(|(i, w)| *w * x[*i]).sum()
}

#[cfg(any())]
#[differentiable(order = 2)]
fn zip3(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    a.iter().zip(b.iter()).zip(c.iter()).map(|((x, y), z)| x * y * z).sum()
}

#[cfg(any())]
#[differentiable(order = 2)]
fn zip3_for(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for ((x, y), z) in a.iter().zip(b.iter()).zip(c.iter()) {
        s += x * y * z.sin();
    }
    s
}

#[cfg(any())]
#[differentiable(order = 2)]
fn csign(x: f64, y: f64) -> f64 {
    x.copysign(y) * x
}

#[differentiable(order = 2)]
fn owned_iter_refs(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for (i, w) in terms.iter() {
        s += w * x[*i];
    }
    s
}

#[differentiable]
fn owned_iter_amp(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for &(i, w) in terms.iter() {
        s += w * x[i] * x[i];
    }
    for &(i, w) in &terms {
        s += w * x[i];
    }
    s
}

#[differentiable(order = 2)]
fn owned_map(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    terms.iter().map(|&(i, w)| w * x[i]).sum::<f64>() + terms.iter().map(|(i, w)| *w * x[*i]).sum::<f64>()
}

#[differentiable(order = 2)]
fn vecref_map(x: &[f64], terms: &Vec<(usize, f64)>) -> f64 {
    let mut s = terms.iter().map(|(i, w)| *w * x[*i]).sum::<f64>();
    for &(i, w) in terms {
        s += w * x[i].sin();
    }
    s
}

#[differentiable(order = 2)]
fn arr_map(x: &[f64], terms: [(usize, f64); 3], q: &[(f64, f64); 2]) -> f64 {
    let mut s = terms.iter().map(|(i, w)| *w * x[*i]).sum::<f64>();
    for (a, b) in q.iter() {
        s += *a * x[0] * x[1] + b * x[0];
    }
    for &(a, b) in q {
        s += a * b * x[1];
    }
    s
}
