// An iterator chain that no supported terminal ends, after `.copied()`/`.cloned()`: the error names
// the method that ends it (it fell on the `.iter()` before, as if that method were unsupported).
use autodiff::differentiable;

#[differentiable]
fn second(x: &[f64]) -> f64 {
    x.iter().copied().nth_back(1).unwrap_or(0.0)
}

#[differentiable]
fn largest_index(x: &[f64], sizes: &[usize]) -> f64 {
    let n = sizes.iter().cloned().max().unwrap_or(0);
    x[n]
}

fn main() {}
