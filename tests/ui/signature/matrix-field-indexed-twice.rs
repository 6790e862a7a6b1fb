use autodiff::{differentiable, Differentiable};

// A struct field holding a matrix (`Vec<Vec<f64>>`) is read `self.w[i][j]`, at first order and at
// `order = K` (tests/structs_order2.rs); the field bound to a local first is an error, which says what
// works.
#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Vec<Vec<f64>>,
    pub b: Vec<f64>,
}

impl Dense {
    #[differentiable(wrt(x))]
    pub fn bound_first(&self, x: &[f64]) -> f64 {
        let w = &self.w;
        w[0][1] * x[0] * x[1]
    }
}

fn main() {
    let d = Dense {
        w: vec![vec![1.0; 2]; 2],
        b: vec![0.0; 2],
    };
    let _ = d.bound_first_grad(&[1.0, 2.0]);
}
