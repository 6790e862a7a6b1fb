use autodiff::differentiable;

// rust-lang/rust tests/ui/autodiff/autodiff_illegal.rs `f16`: a result of a type alias of a float, which
// the macro, reading types by their names, cannot know for a float.
type MyFloat = f32;

#[differentiable]
fn f16(x: f32) -> MyFloat {
    x * x
}

fn main() {}
