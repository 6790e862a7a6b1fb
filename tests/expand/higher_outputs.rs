use autodiff::{differentiable, Float};

/// `order = 2` with output parameters: a residual written into `r`, a float output `e` read before it is
/// written (so part of the gradient), and the returned float whose Hessian `f_hessian` gives.
#[differentiable(order = 2)]
fn residual<T: Float>(x: &[T], r: &mut [T], e: &mut T) -> T {
    r[0] = x[0] * x[1] - *e;
    *e = r[0] * r[0];
    *e + x[0]
}
