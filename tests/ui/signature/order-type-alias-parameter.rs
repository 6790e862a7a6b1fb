use autodiff::differentiable;

// rust-lang/rust tests/ui/autodiff/autodiff_illegal.rs `f15` at `order = 2`: a parameter of a type
// alias of a float, which the macro, reading types by their names, takes for a parameter struct (as at
// first order: tests/ui/activity/float-method-of-type-alias.rs).
type Real = f64;

#[differentiable(order = 2)]
fn g(x: Real) -> f64 {
    x * x
}

fn main() {}
