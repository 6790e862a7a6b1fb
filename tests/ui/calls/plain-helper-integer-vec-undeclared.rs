// A plain helper returning a `Vec` of indexes (a user's argsort), called on differentiated values: declared
// (`let p: Vec<usize> = argsort(x);`) it is integer data with no derivative and the call is made as written
// (tests/argsort35.rs); undeclared, its elements read as indexes, the error at the call says to write the
// type, at first order and at `order = 2`.
use autodiff::differentiable;

fn argsort(x: &[f64]) -> Vec<usize> {
    let mut p: Vec<usize> = (0..x.len()).collect();
    p.sort_by(|a, b| x[*a].total_cmp(&x[*b]));
    p
}

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let p = argsort(x);
    x[p[0]] * x[p[1]]
}

#[differentiable(order = 2)]
fn g(x: &[f64], w: &[f64]) -> f64 {
    let order = argsort(x);
    let mut s = 0.0;
    for k in 0..x.len() {
        s += x[order[k]] * w[k];
    }
    s
}

fn main() {}
