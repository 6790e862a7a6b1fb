use autodiff::differentiable;

// A matrix of `Vec`s bound outside a loop and assigned whole inside it: its rows' lengths may change, which
// the macro's arrays (memory written in place) cannot follow. A nested fixed-size array (`[[f64; 2]; 2]`) is
// copied entry by entry (tests/array_assignment.rs), and so is a `Vec` of floats (tests/rejected24.rs).
#[differentiable]
pub fn relaxed_rows(x: f64, n: usize) -> f64 {
    let mut m = vec![vec![x; 2]; 2];
    for _ in 0..n {
        let mut next = vec![vec![0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                next[i][j] = 0.5 * (m[i][j] + m[j][i]) * x;
            }
        }
        m = next;
    }
    m[0][1]
}


// A call's result whose type the macro cannot see, assigned in a loop: declaring it `[f64; N]` is the way.
#[differentiable]
fn step(y: &[f64; 2]) -> [f64; 2] {
    [y[1], y[0] * y[1]]
}

#[differentiable]
pub fn stepped(x: f64, n: usize) -> f64 {
    let mut y = step(&[x, x]);
    for _ in 0..n {
        y = step(&y);
    }
    y[0]
}

fn main() {}
