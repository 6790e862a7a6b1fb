use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let magnitude = |v: f64| {
        if v > 0.0 {
            return v;
        }
        -v
    };
    magnitude(x) * x
}

fn main() {}
