// Arrays nest two deep (a matrix); a third level is not supported yet: flatten it.
use autodiff::differentiable;

#[differentiable]
fn f(a: [[[f32; 2]; 2]; 2]) -> f32 {
    a[0][1][1] * a[1][0][0]
}

fn main() {}
