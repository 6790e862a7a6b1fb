use autodiff::differentiable;

// A `loop` with a value, bound by `let`, that jumps to an outer loop's label: its expansion did not compile
// (autodiff-fuzz --sugar --seed 24025, program p12); now a spanned error at the loop.
#[differentiable]
fn skip_large(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'rows: for i in 0..x.len() {
        let mut k = 0;
        let t = loop {
            if x[i] > 0.5 {
                continue 'rows;
            }
            k += 1;
            if k >= 2 {
                break x[i] * 2.0;
            }
        };
        s += t;
    }
    s
}

fn main() {}
