use autodiff::{differentiable, Differentiable};

// At `order = K` a field passed on whole reaches the callee's `__g_pairs` as its part of the values view:
// a `Vec`, an array or a matrix of floats, or a nested struct. A nest deeper than a matrix is not
// supported there: the error naming it first (a matrix of `Vec<f64>`), then the errors of the stand-in
// `__cube_pairs` (a function of a deeper nest has no real one) that the call reaches.
#[derive(Clone, Debug, Differentiable)]
pub struct Deep {
    pub w: Vec<Vec<Vec<f64>>>,
    pub b: f64,
}

#[differentiable]
fn cube(w: &[Vec<Vec<f64>>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        for j in 0..x.len() {
            s += w[i][j][0] * x[j];
        }
    }
    s
}

#[differentiable(wrt(p), order = 2)]
fn deep(p: &Deep, x: &[f64]) -> f64 {
    cube(&p.w, x) + p.b
}

fn main() {
    let d = Deep {
        w: vec![vec![vec![1.0; 2]; 2]; 2],
        b: 0.5,
    };
    let _ = deep_hessian(&d, &[1.0, 2.0]);
}
