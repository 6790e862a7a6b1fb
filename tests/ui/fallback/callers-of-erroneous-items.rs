use autodiff::{custom_gradient, differentiable, gradient_of, Differentiable};

// One mistake in each of these functions, methods, custom gradient and registration: their differentiable
// callers, at first order and at `order = 2` (which name the callees' generic copies, hidden functions and
// Hessians), and the callers of their generated items add no error of their own.
#[differentiable]
fn f(x: f64) -> f64 {
    x.midpoint(1.0) * x
}

#[differentiable(order = 2)]
fn f2(x: f64) -> f64 {
    x.midpoint(1.0) * x
}

#[differentiable]
fn fill(x: f64, out: &mut [f64]) {
    out[0] = x.midpoint(1.0);
}

#[custom_gradient]
fn c(x: f64) -> (f64, impl Fn(f64) -> f64) {
    (x * x, move |dy, e| dy * e)
}

mod outside {
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

#[gradient_of(outside::cube)]
fn cube_vjp(x: f64, dy: f64) -> (f64, f64) {
    (3.0 * x * x * dy, 0.0)
}

#[derive(Clone, Debug, Differentiable)]
struct S {
    k: f64,
}

impl S {
    #[differentiable]
    fn m(&self, x: f64) -> f64 {
        x.midpoint(1.0) * self.k
    }

    #[differentiable(order = 2)]
    fn m2(&self, x: f64) -> f64 {
        x.midpoint(1.0) * self.k
    }

    #[differentiable]
    fn a(x: f64) -> f64 {
        x.midpoint(1.0)
    }

    #[differentiable(order = 2)]
    fn a2(x: f64) -> f64 {
        x.midpoint(1.0)
    }

    #[differentiable(wrt(self, x))]
    fn ws(&self, x: f64) -> f64 {
        self.k.midpoint(1.0) * x
    }

    #[differentiable(order = 2, wrt(self, x))]
    fn ws2(&self, x: f64) -> f64 {
        self.k.midpoint(1.0) * x
    }

    #[differentiable]
    fn caller1(&self, x: f64) -> f64 {
        self.m(x) + Self::a(x) + f(x) + self.ws(x) + self.m2(x) + Self::a2(x) + f2(x) + c(x)
            + outside::cube(x)
    }

    #[differentiable(order = 2)]
    fn caller2(&self, x: f64) -> f64 {
        self.m(x) + Self::a(x) + f(x) + self.ws(x) + self.m2(x) + Self::a2(x) + f2(x) + c(x)
    }

    #[differentiable(order = 2, wrt(self, x))]
    fn caller3(&self, x: f64) -> f64 {
        Self::a(x) + f(x) + self.ws(x) + Self::a2(x) + f2(x) + self.ws2(x)
    }
}

#[differentiable(order = 2)]
fn caller4(x: f64) -> f64 {
    let mut out = [0.0; 1];
    fill(x, &mut out);
    f(x) + S::a(x) + f2(x) + S::a2(x) + c(x) + out[0] + outside::cube(x)
}

#[differentiable(order = 2, wrt(s, x))]
fn caller5(s: &S, x: f64) -> f64 {
    S::ws(s, x) + f(x) + S::ws2(s, x)
}

#[differentiable]
fn caller6(s: &S, x: f64) -> f64 {
    S::ws(s, x) + f(x) + S::ws2(s, x)
}

fn main() {
    let s = S { k: 1.0 };
    let (_, _, _) = f2_hessian(1.0);
    let (_, _, _) = f2_hvp(1.0, 1.0);
    let [_, _, _] = f2_derivatives(1.0);
    let (_, _, _) = s.m2_hessian(1.0);
    let (_, _, _) = S::a2_hessian(1.0);
    let (_, _, _) = s.ws2_hessian(1.0);
    let _ = (caller4_hessian(1.0), caller5_hessian(&s, 1.0), caller6_grad(&s, 1.0));
    let _ = (s.caller2_hessian(1.0), s.caller3_hessian(1.0), s.caller1_grad(1.0));
}
