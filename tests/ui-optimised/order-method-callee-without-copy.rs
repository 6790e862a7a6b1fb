// `order = K` on a method with a constant `self` calls the methods it calls through their generic copies
// (`Self::__total_generic`), made where they surely compile. One whose body iterates with references
// (`.iter().map(|w| w * x)`) has none: rustc reports the missing copy at the call.
use autodiff::differentiable;

struct Weights {
    ws: Vec<f64>,
}

impl Weights {
    #[differentiable]
    fn total(&self, x: f64) -> f64 {
        self.ws.iter().map(|w| w * x).sum()
    }

    #[differentiable(order = 2)]
    fn energy(&self, x: f64) -> f64 {
        self.total(x).powi(2)
    }
}

fn main() {}
