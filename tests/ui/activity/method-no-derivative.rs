use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let wrapped = x.rem_euclid(2.0);
    let turns = x.div_euclid(2.0);
    wrapped + turns + x.to_bits() as f64
}

fn main() {}
