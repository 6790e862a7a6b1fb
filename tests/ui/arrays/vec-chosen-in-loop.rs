// A `Vec` chosen by an `if` inside a loop would grow at every iteration of the array it is filled into.
use autodiff::differentiable;

#[differentiable]
pub fn pick(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let v = if i % 2 == 0 { x.to_vec() } else { vec![1.0; 2] };
        s += v[0];
    }
    s
}

fn main() {}
