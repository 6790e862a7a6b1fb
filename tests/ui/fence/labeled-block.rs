use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = 'b: {
        if x > 1.0 {
            break 'b x;
        }
        x * x
    };
    y
}

fn main() {}
