// Output parameters work on methods and associated functions, but `order = K` needs a float result: a
// method whose results are all in its outputs gets the error that a free function gets, spelled with the
// call a caller writes (`self.force(..)`, `Self::spread(..)`), and the callers of its generated items get
// none of their own.
use autodiff::differentiable;

struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable(order = 2)]
    fn force(&self, x: &[f64], out: &mut [f64]) {
        out[0] = -self.k * x[0];
    }

    #[differentiable(order = 2)]
    fn spread(x: f64, out: &mut [f64; 2]) {
        out[0] = x * x;
        out[1] = x.sin();
    }
}

fn main() {
    let s = Spring { k: 2.0 };
    let mut out = [0.0];
    let _: Vec<f64> = s.force_vjp(&[1.0], &mut out, &[1.0]);
    let mut pair = [0.0; 2];
    let _: f64 = Spring::spread_vjp(1.0, &mut pair, &[1.0, 0.0]);
}
