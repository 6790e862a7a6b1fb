// Nested arrays of floats nest one way, arrays in arrays or `Vec`s in `Vec`s (`[[[f64; 2]; 2]; 2]`,
// `Vec<Vec<Vec<f32>>>` work), and a slice or `Vec` of rows that are arrays (`&[[f64; 2]]`) is a matrix;
// a slice of matrices that are arrays, or an array of `Vec`s, is an error saying what to write.
use autodiff::differentiable;

#[differentiable]
fn f(cube: &[[[f64; 2]; 2]], v: Vec<[Vec<f32>; 2]>) -> f64 {
    cube[0][0][0] + v[0][0][0] as f64
}

fn main() {}
