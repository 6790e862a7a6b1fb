use autodiff::differentiable;

// Optional weights bound by `if let Some(ws)` from an `Option<&[f64]>` parameter: the binding is not
// seen as a slice (an `Option<f64>` bound this way is supported).
#[differentiable(wrt(x))]
fn weighted(x: &[f64], weights: Option<&[f64]>) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let w = if let Some(ws) = weights { ws[i] } else { 1.0 };
        total += w * x[i] * x[i];
    }
    total
}

fn main() {}
