use autodiff::{differentiable, Differentiable};

// At `order = K` a field passed on whole reaches the callee's `__g_pairs` as its part of the values view:
// a `Vec` or an array of floats, or a nested struct. A matrix field is not supported yet: the error naming
// it (`FieldWindow`), beside rustc's unresolved `__layer_pairs` (a function of a matrix has none; not one error yet).
#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Vec<Vec<f64>>,
    pub b: f64,
}

#[differentiable]
fn layer(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        for j in 0..x.len() {
            s += w[i][j] * x[j];
        }
    }
    s
}

#[differentiable(wrt(p), order = 2)]
fn dense(p: &Dense, x: &[f64]) -> f64 {
    layer(&p.w, x) + p.b
}

fn main() {
    let d = Dense {
        w: vec![vec![1.0; 2]; 2],
        b: 0.5,
    };
    let _ = dense_hessian(&d, &[1.0, 2.0]);
}
