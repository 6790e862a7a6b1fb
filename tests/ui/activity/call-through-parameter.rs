use autodiff::differentiable;

#[differentiable]
fn f2(f: fn(f32) -> f32, x: f32) -> f32 {
    f(x)
}

fn main() {}
