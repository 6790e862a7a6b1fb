use autodiff::differentiable;

// `.windows(2)` over the rows of a matrix (`&[[f64; 2]]`) would be a sub-slice of its rows, which is not
// supported: the error points at the method, not at the attribute.
#[differentiable]
fn path_length(pts: &[[f64; 2]]) -> f64 {
    pts.windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt())
        .sum()
}

fn main() {
    let _ = path_length_grad(&[[0.0, 0.0], [3.0, 4.0]]);
}
