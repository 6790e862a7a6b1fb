use autodiff::differentiable;

// A parameter holding a matrix of integers (`&[[usize; 2]]`, `&[Vec<usize>]`) is read by index
// (`edges[e][0]`, `nbrs[i][k]`: `tests/integer_matrices46.rs`) but not iterated: the error at each
// iteration says to loop over its indices or to pass a slice of tuples.

#[differentiable]
fn pairs(x: &[f64], edges: &[[usize; 2]]) -> f64 {
    let mut s = 0.0;
    for &edge in edges {
        s += x[edge[0]] * x[edge[1]];
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
