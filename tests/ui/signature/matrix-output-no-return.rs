use autodiff::differentiable;

// A nested array as an output parameter of a function returning `()`: one error, at the parameter's type
// (not a second one asking for a return type).
#[differentiable]
fn covariance_predict(p: [[f64; 2]; 2], dt: f64, out: &mut [[f64; 2]; 2]) {
    for i in 0..2 {
        for j in 0..2 {
            out[i][j] = p[i][j] + dt;
        }
    }
}

fn main() {
    let mut out = [[0.0; 2]; 2];
    covariance_predict([[1.0, 0.0], [0.0, 1.0]], 0.1, &mut out);
}
