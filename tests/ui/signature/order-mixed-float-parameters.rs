use autodiff::differentiable;

// rust-lang/rust tests/codegen-llvm/autodiff/sret.rs at `order = 2`: `f32` inputs and an `f64` result.
// Its first order works (`tests/probe_ports26.rs`); the generic copy of `order = K` has one float type.
#[differentiable(order = 2)]
fn primal(x: f32, y: f32) -> f64 {
    (x * x * y) as f64
}

fn main() {}
