use autodiff::differentiable;

#[differentiable(order = 2)]
fn potential(x0: f64, x1: f64, w: f64) -> f64 {
    w * (x0 * x0 + x1 * x1).sqrt()
}

// The gradient of `potential` inside a differentiable body: nested reverse mode.
#[differentiable]
fn descend(w: f64) -> f64 {
    let (mut x0, mut x1) = (1.0, 0.5);
    for _ in 0..3 {
        let (_, (g0, g1, _)) = potential_grad(x0, x1, w);
        x0 -= 0.1 * g0;
        x1 -= 0.1 * g1;
    }
    x0 + x1
}

fn main() {}
