use autodiff::differentiable;

// rust-lang/rust tests/pretty/autodiff/autodiff_forward.rs: `-> ()` written out, with no output
// parameter, so nothing to differentiate.
#[differentiable]
pub fn f7(x: f32) -> () {
    let _ = x;
}

fn main() {}
