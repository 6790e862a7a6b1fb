use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Line {
    pub slope: f64,
}

impl Line {
    #[differentiable(wrt(self), order = 2)]
    pub fn fit(&self, x: f64) -> f64 {
        self.slope * x * x
    }

    /// `self` constant at `order = 2`, calling a method differentiated in `self`.
    #[differentiable(order = 2)]
    pub fn fit_in_data(&self, x: f64) -> f64 {
        self.fit(x) * 2.0
    }
}

fn main() {}
