use autodiff::differentiable;

pub struct Params {
    pub k: f64,
}

// Every problem of one function is reported in the same run: in the attribute, the signature, the body's
// syntax and the body's activity.
#[differentiable(wrt(x, z))]
fn f(x: f64, y: f64, p: &Params, k: Option<f64>) -> f64 {
    let double = |v: f64| 2.0 * v;
    println!("{}", x);
    let scale = if let Some(s) = k { s } else { 1.0 };
    let w = p.k * x.midpoint(1.0);
    let mut acc = 0.0;
    let last = 'outer: loop {
        for _ in 0..3 {
            acc += w * y;
            if acc > 10.0 {
                break 'outer acc;
            }
        }
    };
    last * scale + double(w)
}

fn main() {}
