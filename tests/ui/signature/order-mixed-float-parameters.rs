use autodiff::differentiable;

// `order = 2` on a function of `f32` inputs and an `f64` result: scalars, slices, `Vec`s and arrays of the
// other float type are converted (rust-lang/rust tests/codegen-llvm/autodiff/sret.rs, `fn primal(x: f32, y:
// f32) -> f64`, works: tests/mixed33.rs), a matrix of them is not. Its first order works.
#[differentiable(order = 2)]
fn primal(x: &[Vec<f32>], y: f32) -> f64 {
    (x[0][0] * x[1][0] * y) as f64
}

fn main() {}
