// Arrays are memory the generated code writes in place, not values: an `if` cannot choose one yet.
use autodiff::differentiable;

#[differentiable]
pub fn pick(x: [f64; 3]) -> [f64; 3] {
    let y = [x[1], x[0], x[2]];
    if x[0] > 1.0 {
        return y;
    }
    x
}

fn main() {}
