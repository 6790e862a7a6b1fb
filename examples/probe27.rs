use autodiff::differentiable;
#[differentiable]
fn nested1(x: &[f64], m: &[[[f64; 2]; 3]; 4]) -> f64 {
    let mut s = 0.0;
    for i in 0..4 {
        let row = m[i];
        for j in 0..row.len() {
            for k in 0..2 {
                s += row[j][k] * x[0] * row[j][k];
            }
        }
    }
    s
}
fn main() {
    let m = [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]; 4];
    println!("{:?}", nested1_grad(&[1.5], &m));
}
