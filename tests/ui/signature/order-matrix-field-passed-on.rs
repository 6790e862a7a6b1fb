use autodiff::{differentiable, Differentiable};

// At `order = K` a matrix field is read by its elements (`p.w[i][j]`), its rows (`&p.w[i]`) and its
// number of rows (`p.w.len()`); any other use of it (here iterating its rows) is an error at the use.
#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Vec<Vec<f64>>,
    pub b: Vec<f64>,
}

#[differentiable(order = 2)]
fn second(p: &Dense, x: f64) -> f64 {
    let mut s = p.w[0][0] * x;
    for row in p.w.iter() {
        s += row[1] * x;
    }
    s
}

fn main() {
    let d = Dense {
        w: vec![vec![1.0; 2]; 2],
        b: vec![0.0; 2],
    };
    let _ = second_hessian(&d, 1.0);
}
