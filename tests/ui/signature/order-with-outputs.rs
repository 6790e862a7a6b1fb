// Second order of a function whose results are all in output parameters (it returns `()`): there is no
// float to take the Hessian of. One error, saying to differentiate a function of the outputs.
use autodiff::differentiable;

#[differentiable(order = 2)]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}

fn main() {}
