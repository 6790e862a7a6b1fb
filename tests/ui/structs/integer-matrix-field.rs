use autodiff::{differentiable, Differentiable};

// A `#[no_grad]` matrix of integers read as indexes (`x[p.sets[i][j]]`): not supported as a field, one
// error at the field saying what to write instead (before, seven errors of reading it as floats).
#[derive(Clone, Debug, Differentiable)]
pub struct Graph {
    pub w: Vec<f64>,
    #[no_grad]
    pub sets: Vec<Vec<usize>>,
}

#[differentiable]
pub fn pooled(p: &Graph, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.sets.len() {
        for j in 0..p.sets[i].len() {
            s += p.w[i] * x[p.sets[i][j]];
        }
    }
    s
}

fn main() {
    let p = Graph { w: vec![1.0], sets: vec![vec![0]] };
    let _ = pooled_grad(&p, &[1.0]);
}
