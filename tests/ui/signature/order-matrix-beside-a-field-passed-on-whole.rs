use autodiff::{differentiable, Differentiable};

// At `order = K` a call passing a field on whole (`cross(&p.w, data)`) reaches the callee's `__g_pairs`,
// which takes a matrix as its shape and its values: a matrix parameter of the caller beside the field is
// not supported there, the error at the matrix.
#[derive(Clone, Debug, Differentiable)]
pub struct Net {
    pub w: Vec<Vec<f64>>,
    pub b: f64,
}

#[differentiable]
fn cross(w: &[Vec<f64>], d: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        for j in 0..w[i].len() {
            s += w[i][j] * d[i][j];
        }
    }
    s
}

#[differentiable(wrt(p), order = 2)]
fn fit(p: &Net, data: &[Vec<f64>]) -> f64 {
    cross(&p.w, data) + p.b
}

fn main() {
    let n = Net {
        w: vec![vec![1.0; 2]; 2],
        b: 0.5,
    };
    let _ = fit_hessian(&n, &[vec![1.0, 2.0], vec![3.0, 4.0]]);
}
