use autodiff::differentiable;
use autodiff::differentiable as ad;

// `#[differentiable]` on a trait's `impl` block finds its methods' `#[differentiable]` by name: the
// attribute imported under another name (`#[ad]`) is not seen, and the error says so at it, where the
// block's attribute finds no other method and where the method's own attribute expands inside the trait's
// `impl`. (On an inherent `impl`, `#[ad]` expands where it stands: tests/gaps29.rs.)
struct M {
    k: f64,
}

trait Energy {
    fn e(&self, x: f64) -> f64;
    fn g(&self, x: f64) -> f64;
}

trait Other {
    fn h(&self, x: f64) -> f64;
}

#[differentiable]
impl Other for M {
    #[ad]
    fn h(&self, x: f64) -> f64 {
        self.k * x * x
    }
}

#[differentiable]
impl Energy for M {
    #[differentiable]
    fn e(&self, x: f64) -> f64 {
        self.k * x
    }

    #[ad(order = 2)]
    fn g(&self, x: f64) -> f64 {
        self.k * x.sin()
    }
}

fn main() {
    let m = M { k: 2.0 };
    let _ = m.e_grad(1.0);
}
