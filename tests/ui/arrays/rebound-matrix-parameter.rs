use autodiff::differentiable;

// A `mut` slice parameter rebound to sub-slices of itself is a view into it (tests/gaps28.rs); one of a
// matrix's rows is not supported, as for a local matrix: one error, whose advice fits a matrix (not "cannot
// be written: copy it first", which the parameter got before).
#[differentiable]
fn rows(mut m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    while m.len() > 1 {
        s += m[0][0] * m[1][0];
        m = &m[1..];
    }
    s
}

fn main() {
    let _ = rows_grad(&[vec![1.0], vec![2.0]]);
}
