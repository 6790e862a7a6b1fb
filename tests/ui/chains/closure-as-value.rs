use autodiff::differentiable;

fn apply(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    f(x)
}

#[differentiable]
fn f(x: f64) -> f64 {
    let sq = |v: f64| v * v;
    apply(sq, x)
}

fn main() {}
