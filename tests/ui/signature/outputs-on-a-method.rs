// Output parameters are supported on free functions; a method cannot take one yet: one spanned error, and
// the callers of its generated items get none of their own.
use autodiff::differentiable;

struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable]
    fn force(&self, x: &[f64], out: &mut [f64]) {
        out[0] = -self.k * x[0];
    }
}

fn main() {
    let s = Spring { k: 2.0 };
    let mut out = [0.0];
    s.force(&[1.0], &mut out);
}
