use autodiff::differentiable;

// Chunks zipped with a slice (`logits.chunks_exact(k).zip(labels.iter())`) are supported; zipped with
// another slice's chunks they are not: the other side of the `.zip(..)` is a slice or a range.
#[differentiable(wrt(a))]
fn dots(a: &[f64], b: &[f64]) -> f64 {
    let mut total = 0.0;
    for (p, q) in a.chunks_exact(2).zip(b.chunks_exact(2)) {
        total += p[0] * q[0] + p[1] * q[1];
    }
    total
}

fn main() {}
