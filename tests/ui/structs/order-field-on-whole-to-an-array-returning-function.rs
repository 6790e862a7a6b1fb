// At `order = 2`, a field passed on whole (`&m.cov`) reaches the callee's hidden function of pairs, which
// a callee returning a float, a fixed-size array or a tuple of floats (or `()` with outputs) has
// (`solve3(&m.cov, &m.mu) -> [f64; 3]` works: tests/method_fields46.rs): passing one to a function
// returning a `Vec` is an error at the call saying what to write instead (it was rustc's unresolved
// `__solve_pairs`).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
struct Market {
    mu: [f64; 2],
    cov: [[f64; 2]; 2],
}

#[differentiable]
fn solve(m: &[[f64; 2]; 2], b: &[f64; 2]) -> Vec<f64> {
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    vec![
        (m[1][1] * b[0] - m[0][1] * b[1]) / det,
        (m[0][0] * b[1] - m[1][0] * b[0]) / det,
    ]
}

#[differentiable(wrt(m), order = 2)]
fn utility(m: &Market, gamma: f64) -> f64 {
    let w = solve(&m.cov, &m.mu);
    (w[0] * m.mu[0] + w[1] * m.mu[1]) / gamma
}

fn main() {
    let m = Market { mu: [0.1, 0.2], cov: [[1.0, 0.2], [0.2, 2.0]] };
    let _ = utility_hessian(&m, 2.0);
}
