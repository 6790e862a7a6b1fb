use autodiff::{differentiable, Differentiable};

// `order = K` reads a matrix field (`p.w[i][j]`) through the struct's values view, which a function has
// for differentiated structs only: with the struct constant (`wrt(x)`), an error that says what works.
#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Vec<Vec<f64>>,
    pub b: Vec<f64>,
}

#[differentiable(wrt(x), order = 2)]
fn second(p: &Dense, x: f64) -> f64 {
    p.w[0][0] * x * x + p.b[0]
}

fn main() {
    let d = Dense {
        w: vec![vec![1.0; 2]; 2],
        b: vec![0.0; 2],
    };
    let _ = second_hessian(&d, 1.0);
}
