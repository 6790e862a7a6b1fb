use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let halfway = x.midpoint(2.0);
    let above = x.next_up();
    halfway + above + x.to_bits() as f64
}

fn main() {}
