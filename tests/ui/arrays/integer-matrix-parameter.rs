use autodiff::differentiable;

// A parameter holding a matrix of integers (`&[[usize; 2]]`, `&[Vec<usize>]`) is read by index and
// iterated by rows (`tests/integer_matrices46.rs`, `tests/integer_matrices47.rs`). What is left: other
// iterators over it (`.zip`), a pattern that does not name its rows or elements, a loop over a row whose
// index the body changes, and writing into it.

#[differentiable]
fn zipped(x: &[f64], edges: &[[usize; 2]]) -> f64 {
    let mut s = 0.0;
    for (edge, w) in edges.iter().zip(x.iter()) {
        s += w * x[edge[0]];
    }
    s
}

#[differentiable]
fn rest_pattern(x: &[f64], tris: &[[usize; 3]]) -> f64 {
    let mut s = 0.0;
    for &[a, ..] in tris {
        s += x[a];
    }
    s
}

#[differentiable]
fn moved_row(h: &[f64], nbrs: &[Vec<usize>]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    for &j in nbrs[i].iter() {
        s += h[j];
        i += 1;
    }
    s + i as f64
}

#[differentiable]
fn written(x: &[f64], edges: &mut [[usize; 2]]) -> f64 {
    edges[0][0] = 1;
    x[edges[0][0]]
}

fn main() {}
