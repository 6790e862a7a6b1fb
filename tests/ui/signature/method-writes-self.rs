// `&self` and `self` are supported receivers; a method that writes `self`, or takes it in another
// type, is not differentiated.
use autodiff::differentiable;

struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable]
    fn stretch(&mut self, x: f64) -> f64 {
        self.k * x
    }

    #[differentiable]
    fn relax(mut self, x: f64) -> f64 {
        self.k * x
    }

    #[differentiable]
    fn boxed(self: Box<Self>, x: f64) -> f64 {
        self.k * x
    }
}

fn main() {}
