use autodiff::differentiable;

#[differentiable]
fn f(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for w in xs.rchunks(2) {
        total += w.len() as f64;
    }
    for &v in xs.iter().cycle() {
        total += v * v;
    }
    total
}

fn main() {}
