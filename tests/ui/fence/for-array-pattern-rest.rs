use autodiff::differentiable;

// An array pattern with a rest in a `for` over points: one error, which says to name every element.
#[differentiable]
fn firsts(pts: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for &[x, ..] in pts {
        s += x;
    }
    s
}

fn main() {
    let _ = firsts_grad(&[[1.0, 2.0, 3.0]]);
}
