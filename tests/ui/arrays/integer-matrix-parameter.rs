use autodiff::differentiable;

// A parameter holding a matrix of integers (`&[[usize; 2]]`, `&[Vec<usize>]`) is not read by a
// differentiable body yet: the error at each read says to pass it flat or as a slice of tuples, which
// work (`tests/trial46.rs`, `fem2d` and `gnn`), not only that it holds no floats.

#[differentiable]
fn pairs(x: &[f64], edges: &[[usize; 2]]) -> f64 {
    let mut s = 0.0;
    for &edge in edges {
        s += x[edge[0]] * x[edge[1]];
    }
    s
}

#[differentiable]
fn indexed(x: &[f64], edges: &[[usize; 2]]) -> f64 {
    let mut s = 0.0;
    for e in 0..edges.len() {
        s += x[edges[e][0]];
    }
    s
}

#[differentiable]
fn neighbours(h: &[f64], nbrs: &[Vec<usize>]) -> f64 {
    let mut s = 0.0;
    for i in 0..h.len() {
        for &j in nbrs[i].iter() {
            s += h[i] * h[j];
        }
    }
    s
}

fn main() {}
