use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    struct Pair {
        a: f64,
    }
    let p = Pair { a: 2.0 };
    p.a * x
}

fn main() {}
