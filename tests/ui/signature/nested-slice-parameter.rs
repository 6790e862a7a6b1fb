use autodiff::differentiable;

#[differentiable]
fn f(cube: &[[[f64; 2]; 2]], v: Vec<Vec<Vec<f32>>>) -> f64 {
    cube[0][0][0] + v[0][0][0] as f64
}

fn main() {}
