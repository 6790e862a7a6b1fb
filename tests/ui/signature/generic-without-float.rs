use autodiff::differentiable;

// rust-lang/rust tests/codegen-llvm/autodiff/generic.rs: generic over any `Mul + Copy`; a generic
// differentiable function is bounded by `Float`.
#[differentiable]
fn square<T: std::ops::Mul<Output = T> + Copy>(x: &T) -> T {
    *x * *x
}

fn main() {}
