use autodiff::{differentiable, Differentiable};

// A `#[no_grad]` matrix of integers read as indexes is data where the file declares it as a field of the
// parameter struct itself (`tests/integer_matrices47.rs`); in a nested struct (`p.inner.sets[i][j]`) it is
// not supported: one error at the field saying what to write instead.
#[derive(Clone, Debug, Differentiable)]
pub struct Sets {
    #[no_grad]
    pub sets: Vec<Vec<usize>>,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Graph {
    pub w: Vec<f64>,
    pub inner: Sets,
}

#[differentiable]
pub fn pooled(p: &Graph, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.inner.sets.len() {
        for j in 0..p.inner.sets[i].len() {
            s += p.w[i] * x[p.inner.sets[i][j]];
        }
    }
    s
}

fn main() {
    let p = Graph { w: vec![1.0], inner: Sets { sets: vec![vec![0]] } };
    let _ = pooled_grad(&p, &[1.0]);
}
