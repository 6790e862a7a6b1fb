use autodiff::{differentiable, Differentiable};

#[derive(Clone, Copy, Debug, Differentiable)]
struct P {
    a: f64,
    b: f64,
}

impl P {
    // The macro reads a method's fields where they are written `self.a`: one error at the `let`, none at
    // `s.a`, `s.b`.
    #[differentiable(wrt(self))]
    fn shadow(self, x: f64) -> f64 {
        let s = self;
        s.a * x + s.b
    }
}

fn main() {
    let p = P { a: 2.0, b: 3.0 };
    let _ = p.shadow_grad(5.0);
}
