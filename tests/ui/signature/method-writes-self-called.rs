// A method that writes `self` is not differentiated (method-writes-self.rs): one error, at its receiver,
// and none at the calls of its generated items, whose stand-ins take `self` or `&self` with the shapes of
// the method's (they had the type parameters `__Value`, `__Gradient` that a call could not infer).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
struct P {
    a: f64,
}

impl P {
    #[differentiable(wrt(self, x))]
    fn grow(mut self, x: f64) -> f64 {
        self.a *= x;
        self.a
    }

    #[differentiable(wrt(self, x))]
    fn shrink(&mut self, x: f64) -> f64 {
        self.a /= x;
        self.a
    }
}

fn main() {
    let p = P { a: 1.0 };
    let (_v, (_gp, _gx)) = p.clone().grow_grad(2.0);
    let _ = p.clone().grow_vjp(3.0, 1.0);
    let (_v, (_gp, _gx)) = p.shrink_grad(2.0);
    let _ = p.shrink_jvp(2.0, (P { a: 1.0 }, 1.0));
}
