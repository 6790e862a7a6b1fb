use autodiff::differentiable;

// `g_hessian` calls the method once per input, each call taking `self` by value: `Scale` must be `Clone`.
struct Scale {
    a: f64,
}

impl Scale {
    #[differentiable(order = 2)]
    fn g(self, x: f64) -> f64 {
        self.a * x * x
    }
}

fn main() {}
