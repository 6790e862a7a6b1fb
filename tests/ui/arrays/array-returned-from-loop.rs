use autodiff::differentiable;

#[differentiable]
pub fn first_large(x: [f64; 2], n: usize) -> [f64; 2] {
    for i in 0..n {
        if x[0] > i as f64 {
            return x;
        }
    }
    [0.0; 2]
}

fn main() {}
