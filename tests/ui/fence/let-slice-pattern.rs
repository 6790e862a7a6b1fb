use autodiff::differentiable;

// An array pattern with a rest in a `let` (`let [a, .., b] = x;`): the error says which array patterns a
// `let` may bind (every element named: `let [a, b, c] = x;` is rewritten to indexed reads).
#[differentiable]
fn product(x: [f64; 3]) -> f64 {
    let [a, .., b] = x;
    a * b
}

fn main() {
    let _ = product_grad([1.0, 2.0, 3.0]);
}
