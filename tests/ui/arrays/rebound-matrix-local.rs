use autodiff::differentiable;

// A local view of a matrix's rows rebound in a loop to a sub-slice of them: one error, at the rebinding
// (the windows the macro takes for the view are spanned there, not at the attribute).
#[differentiable]
fn rows(m: &[[f64; 3]], n: usize) -> f64 {
    let mut s = 0.0;
    let mut r: &[[f64; 3]] = m;
    for _ in 0..n {
        s += r[0][1];
        r = &r[1..];
    }
    s
}

fn main() {
    let _ = rows_grad(&[[1.0; 3], [2.0; 3]], 1);
}
