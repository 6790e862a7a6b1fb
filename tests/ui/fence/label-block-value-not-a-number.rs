use autodiff::differentiable;

// A labeled block's value carried out of a loop nested in it starts in a variable of the value's type,
// which the syntax of `break 'a t` (a tuple held in a local) does not tell. (`break 'a (u, v)`, `[u, v]` and
// a comparison tell it: `tests/adv23.rs`.) The error is at the carried value.
#[differentiable]
fn first_pair(x: &[f64]) -> f64 {
    let t = (x[0], 1.0);
    let (a, b) = 'found: {
        for i in 0..x.len() {
            if x[i] > 0.0 {
                break 'found t;
            }
        }
        t
    };
    a * b
}

fn main() {}
