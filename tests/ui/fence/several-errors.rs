use autodiff::differentiable;

// Every unsupported construct of one function is reported in the same run.
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let double = |v: f64| 2.0 * v;
    println!("{}", x);
    let mut acc = 0.0;
    for _ in 0..3 {
        acc += x;
    }
    let v = [x, y];
    let w = v[0] * x.to_degrees();
    acc + double(w)
}

fn main() {}
