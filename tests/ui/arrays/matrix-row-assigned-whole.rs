// A whole row of a matrix is assigned entry by entry (`probe_ports26b.rs`, `found`); a compound
// assignment to one (`m[i] += row`, which Rust has for no `Vec` or array) is a spanned error, not
// generated code that fails to compile.
use autodiff::differentiable;

#[differentiable]
fn rows(x: &[f64]) -> f64 {
    let mut h = vec![[0.0; 3]; x.len()];
    for t in 0..h.len() {
        h[t] += [x[t]; 3];
    }
    h[0][1]
}

fn main() {}
