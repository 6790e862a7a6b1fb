use autodiff::differentiable;

// A slice of tuples iterated with a pattern that does not name the parts: spanned on the pattern.
#[differentiable]
fn whole_element(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for p in terms.iter() {
        s += p.1 * x[p.0];
    }
    s
}

// Over an owned `Vec`: what stays unsupported in the body (a reference bound by `let`) is spanned on the
// user's expression, not on the attribute.
#[differentiable]
fn owned(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for (i, w) in terms.iter() {
        let r = &w;
        s += *r * x[*i];
    }
    s
}

fn main() {}
