use autodiff::differentiable;

fn argmax(v: &[usize]) -> usize {
    let mut k = 0;
    for i in 0..v.len() { if v[i] > v[k] { k = i; } }
    k
}

#[differentiable(order = 2)]
fn pick(x: &[f64], idx: &[usize]) -> f64 {
    let k = argmax(idx);
    let mut s = 0.0;
    s += x[k] * x[k];
    s
}

#[differentiable]
fn pick1(x: &[f64], idx: &[usize]) -> f64 {
    let k = argmax(idx);
    let mut s = 0.0;
    s += x[k] * x[0];
    s
}

#[test]
fn p4() { let (v, g) = pick_grad(&[1.0, 2.0, 3.0], &[1, 5, 2]); println!("{v} {g:?}"); let (v, g) = pick1_grad(&[1.0, 2.0, 3.0], &[1, 5, 2]); println!("{v} {g:?}"); }
