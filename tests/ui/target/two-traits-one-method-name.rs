use autodiff::differentiable;

// Two traits implemented for one type, each with a `#[differentiable]` method `f`: both would emit
// `f_grad`, `f_vjp`, .. in inherent `impl`s of the type (rustc's E0592 at each of them, twenty or so).
// One error, at the second `f`, that names the clash.
struct M {
    k: f64,
}

trait A {
    fn f(&self, x: f64) -> f64;
}

trait B {
    fn f(&self, x: f64) -> f64;
    fn g(&self, x: f64) -> f64;
}

#[differentiable]
impl A for M {
    #[differentiable]
    fn f(&self, x: f64) -> f64 {
        self.k * x * x
    }
}

#[differentiable]
impl B for M {
    #[differentiable]
    fn f(&self, x: f64) -> f64 {
        self.k * x.sin()
    }

    #[differentiable]
    fn g(&self, x: f64) -> f64 {
        self.k * x.cos()
    }
}

fn main() {
    let m = M { k: 2.0 };
    let _ = m.f_grad(1.0);
    let _ = m.g_grad(1.0);
}
