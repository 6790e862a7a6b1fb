use autodiff::differentiable;

// rust-lang/rust's std::autodiff tests (codegen-llvm/autodiff/zst.rs, type-trees/box.rs,
// slice-dst-typetree): parameters that are not floats, slices or arrays of floats.

// A unit parameter and a `&mut f64` that the body never writes (so not an output).
#[differentiable]
fn zst(_zst: (), _x: &mut f64) -> f64 {
    1.0
}

// A float in a `Box`.
#[differentiable]
fn boxed(x: &Box<f32>) -> f32 {
    **x * **x
}

// A slice of `()`.
#[differentiable]
fn zst_slice_len(slice: &[()]) -> f32 {
    slice.len() as f32
}

fn main() {}
