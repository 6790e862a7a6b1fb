// `order = K` on a method with a constant `self` calls the methods it calls through their generic copies
// (`Self::__total_generic`), made where they surely compile. One whose body passes `self` on whole to a
// free function (`first(self, x)`, whose copy over the struct may not exist) has none: one error at the
// call, saying what to do (not rustc's missing `Self::__total_generic`). (An associated function iterating
// by reference a local `Vec` that a differentiable callee returns, `Self::sumsq` below, has one: its
// elements are floats.) (A field iterated by reference with its elements read as numbers, `for w in
// self.ws.iter() { s += w * x }`, or by value, `for &w in self.ws.iter()`, gets the copy:
// tests/methods37.rs, tests/methods.rs.)
use autodiff::differentiable;

#[differentiable]
fn both(x: &[f64]) -> Vec<f64> {
    vec![x[0], x[1]]
}

struct Weights {
    ws: Vec<f64>,
}

#[differentiable(wrt(x))]
fn first(w: &Weights, x: f64) -> f64 {
    w.ws[0] * x
}

impl Weights {
    #[differentiable]
    fn total(&self, x: f64) -> f64 {
        first(self, x) * 2.0
    }

    #[differentiable]
    fn sumsq(x: &[f64]) -> f64 {
        let w = both(x);
        let mut s = 0.0;
        for v in w.iter() {
            s += v * v;
        }
        s
    }

    #[differentiable(order = 2)]
    fn energy(&self, x: f64) -> f64 {
        self.total(x).powi(2) + Self::sumsq(&[x, 2.0 * x])
    }
}

fn main() {}
