use autodiff::differentiable;

// A branch gives an array held in a tuple, which the macro does not see as an array.
#[differentiable]
fn f(x: [f64; 2], k: i32) -> f64 {
    let p = (x, 1.0);
    let y = if k > 0 { p.0 } else { x };
    y[0] * y[1]
}

fn main() {}
