use autodiff::differentiable;

#[differentiable]
fn first_large(x: &[f64]) -> f64 {
    'search: loop {
        for &v in x {
            if v > 1.0 {
                break 'search v * v;
            }
        }
        break 'search 0.0;
    }
}


fn main() {}
