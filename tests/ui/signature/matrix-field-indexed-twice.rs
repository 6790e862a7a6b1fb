use autodiff::{differentiable, Differentiable};

// A struct field holding a matrix (`Vec<Vec<f64>>`), indexed twice in a body: one error each, which says
// what works (the field stored flat, or the matrix taken as a parameter).
#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Vec<Vec<f64>>,
    pub b: Vec<f64>,
}

impl Dense {
    #[differentiable(wrt(self, x))]
    pub fn out(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..self.b.len() {
            let mut z = self.b[i];
            for j in 0..x.len() {
                z += self.w[i][j] * x[j];
            }
            s += z.tanh();
        }
        s
    }

    #[differentiable(order = 2, wrt(x))]
    pub fn bound_first(&self, x: &[f64]) -> f64 {
        let w = &self.w;
        w[0][1] * x[0] * x[1]
    }
}

#[differentiable(wrt(p))]
fn free(p: &Dense, x: f64) -> f64 {
    p.w[0][0] * x + p.b[0]
}

fn main() {
    let d = Dense {
        w: vec![vec![1.0; 2]; 2],
        b: vec![0.0; 2],
    };
    let _ = d.out_grad(&[1.0, 2.0]);
    let _ = d.bound_first_hessian(&[1.0, 2.0]);
    let _ = free_grad(&d, 1.0);
}
