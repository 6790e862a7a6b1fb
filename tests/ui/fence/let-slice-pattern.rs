use autodiff::differentiable;

// A slice pattern in a `let` (`let [a, b] = x;`): the error says which patterns a `let` may bind.
#[differentiable]
fn product(x: [f64; 2]) -> f64 {
    let [a, b] = x;
    a * b
}

fn main() {
    let _ = product_grad([1.0, 2.0]);
}
