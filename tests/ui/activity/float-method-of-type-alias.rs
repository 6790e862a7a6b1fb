use autodiff::differentiable;

// rust-lang/rust tests/ui/autodiff/autodiff_illegal.rs `f15`: a parameter of a type alias of a float,
// which the macro (reading types by their names) takes for a parameter struct; arithmetic and float
// methods of it generated code that did not compile.
type MyFloat = f32;

#[differentiable]
fn f15(x: MyFloat) -> f32 {
    x * x.sin()
}

#[differentiable]
fn half_square(x: MyFloat) -> f32 {
    x * x * 0.5
}

fn main() {}
