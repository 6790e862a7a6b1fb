use autodiff::differentiable;

// Rows of a flat batch zipped with their labels: `chunks_exact(k).zip(..)` is not a supported source;
// `.enumerate()` and an index into the labels is.
#[differentiable(wrt(logits))]
fn loss(logits: &[f64], labels: &[usize], classes: usize) -> f64 {
    let mut total = 0.0;
    for (row, &label) in logits.chunks_exact(classes).zip(labels.iter()) {
        total -= row[label];
    }
    total
}

fn main() {}
