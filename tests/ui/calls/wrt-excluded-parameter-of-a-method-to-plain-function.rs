use autodiff::differentiable;

fn bump(a: f64, t: f64) -> f64 {
    a * t.sin()
}

struct M {
    k: f64,
}

impl M {
    // `t` is outside `wrt(..)`, but a method's hidden sweeps (which its callers run) differentiate every
    // float parameter, and so need `bump`'s derivatives: the note says to pass `stop_gradient(t)`.
    #[differentiable(wrt(u))]
    fn g(&self, u: &[f64], t: f64) -> f64 {
        u[0] * u[0] * self.k + bump(0.5, t)
    }
}

fn main() {
    let m = M { k: 2.0 };
    let _ = m.g_grad(&[1.0], 0.3);
}
