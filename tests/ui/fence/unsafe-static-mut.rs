use autodiff::differentiable;

static mut SCALE: f64 = 2.0;

#[differentiable]
fn f(x: f64) -> f64 {
    let k = unsafe { SCALE };
    k * x
}

fn main() {}
