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


#[differentiable]
fn labeled_block(x: f64) -> f64 {
    let y = 'block: {
        if x > 1.0 {
            break 'block x * x;
        }
        x
    };
    y
}
fn main() {}
