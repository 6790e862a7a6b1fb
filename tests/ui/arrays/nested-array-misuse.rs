// A nested array deeper than a matrix is read by element (`x[i][j][k]`), by its rows of floats
// (`&x[i][j]`) and lengths, or passed whole; its items that are matrices themselves (`x[i]`, or iterating
// `x`) are not held as matrices, and a copy of it is not passed whole: each is an error saying what to do.
use autodiff::differentiable;

#[differentiable]
fn total(m: &[[f64; 2]; 2]) -> f64 {
    m[0][0] + m[1][1]
}

#[differentiable]
fn whole(x: &[[[f64; 2]; 2]; 2]) -> f64 {
    x[0][0][0] * x[1][1][1]
}

#[differentiable]
fn slab(x: &[[[f64; 2]; 2]; 2]) -> f64 {
    total(&x[1]) + x[0][0][0]
}

#[differentiable]
fn planes(x: &[[[f64; 2]; 2]; 2]) -> f64 {
    let mut s = 0.0;
    for plane in x {
        s += plane[0][0];
    }
    s
}

#[differentiable]
fn copied(x: &[[[f64; 2]; 2]; 2], a: f64) -> f64 {
    let mut y = x.clone();
    y[0][0][0] = a;
    whole(&y) + whole(x)
}

fn main() {}
