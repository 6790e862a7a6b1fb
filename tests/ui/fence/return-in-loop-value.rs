use autodiff::differentiable;

// A `return` inside the value of a `match` that a loop's statement adds up.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate() {
        s += match i % 3 {
            0 => v,
            _ => {
                if v > 0.9 {
                    return s * v;
                }
                v * v
            }
        };
    }
    s
}

fn main() {}
