use autodiff::{differentiable, Differentiable};

// A struct field holding a matrix (`Vec<Vec<f64>>`) is read `self.w[i][j]` at first order; two forms are
// errors, one each, which say what works: the field bound to a local first, and `order = K`.
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

#[differentiable(wrt(p), order = 2)]
fn second(p: &Dense, x: f64) -> f64 {
    p.w[0][0] * x * x + p.b[0]
}

fn main() {
    let d = Dense {
        w: vec![vec![1.0; 2]; 2],
        b: vec![0.0; 2],
    };
    let _ = d.bound_first_grad(&[1.0, 2.0]);
    let _ = second_hessian(&d, 1.0);
}
