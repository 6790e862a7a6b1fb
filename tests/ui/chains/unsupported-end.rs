use autodiff::differentiable;

// `.find_map(..)` ends no differentiable chain (`.last()`, which this case showed before, does now, and so
// does `.find(..)`: tests/chains30.rs).
#[differentiable]
fn first_large_square(x: &[f64]) -> f64 {
    x.iter()
        .map(|v| v * v)
        .find_map(|v| if v > 1.0 { Some(v) } else { None })
        .unwrap_or(0.0)
}

fn main() {}
