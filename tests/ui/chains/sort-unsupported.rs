use autodiff::differentiable;

// `select_nth_unstable_by` leaves the other elements in an order std does not specify.
#[differentiable]
fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let k = v.len() / 2;
    v.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
    v[k]
}

// A comparator whose two sides are not the same key of each element.
#[differentiable]
fn mixed(x: &[f64], y: &[f64]) -> f64 {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&i, &j| x[i].partial_cmp(&y[j]).unwrap());
    x[idx[0]]
}

// An unstable sort by a key function: its order of equal keys, of other elements, is not std's stable one.
#[differentiable]
fn keyed(x: &[f64]) -> f64 {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_unstable_by_key(|&i| i % 2);
    x[idx[0]]
}

fn main() {}
