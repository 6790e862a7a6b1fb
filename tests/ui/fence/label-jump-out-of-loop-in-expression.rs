use autodiff::differentiable;

// A `loop` with a value inside an expression (not bound by `let`, which is supported: tests/fuzz25.rs)
// that jumps to an outer loop's label: the loop-label pass tests its flag after the loop, which must be
// a statement; a spanned error at the loop.
#[differentiable]
fn skip_large(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'rows: for i in 0..x.len() {
        let mut k = 0;
        s += 2.0 * loop {
            if x[i] > 0.5 {
                continue 'rows;
            }
            k += 1;
            if k >= 2 {
                break x[i] * 2.0;
            }
        };
    }
    s
}

fn main() {}
