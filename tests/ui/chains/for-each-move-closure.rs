use autodiff::differentiable;

// A `move` closure given to `.for_each(..)` adds to its own copy of `acc` (so `acc` stays 0 in the
// function): not the `for` loop a closure that borrows it is, and refused. `.max_by(..)` with a
// comparator other than `a.partial_cmp(b).unwrap()` or `a.total_cmp(b)` of the elements is not read,
// and a `return` in the closure (which goes on to the next element) is refused with what to write.
#[differentiable]
#[allow(unused_variables, unused_assignments)]
fn moved(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    x.iter().for_each(move |v| acc += v * v);
    acc + x[0]
}

#[differentiable]
fn largest(x: &[f64]) -> f64 {
    *x.iter().max_by(|a, b| a.abs().total_cmp(&b.abs())).unwrap()
}

#[differentiable]
fn early(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    x.iter().for_each(|v| {
        if *v < 0.0 {
            return;
        }
        acc += v.sqrt();
    });
    acc
}

fn main() {
    let _ = early_grad(&[1.0, 2.0]);
    let _ = moved_grad(&[1.0, 2.0]);
    let _ = largest_grad(&[1.0, 2.0]);
}
