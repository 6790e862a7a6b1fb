use autodiff::differentiable;

#[differentiable]
const SCALE: f64 = 2.0;

fn main() {
    let _ = SCALE;
}
