use autodiff::{differentiable, Float};
#[differentiable(wrt(w))]
pub fn softmax_loss<T: Float>(w: &[T], data: &[T], labels: &[usize], d: usize, k: usize) -> T {
    let m = labels.len();
    let mut z = vec![T::zero(); k];
    let mut total = T::zero();
    for j in 0..m {
        for c in 0..k {
            let mut s = T::zero();
            for i in 0..d {
                s = s + w[c * d + i] * data[j * d + i];
            }
            z[c] = s;
        }
        let mut zmax = z[0];
        for c in 1..k {
            zmax = zmax.max(z[c]);
        }
        let mut sum = T::zero();
        for c in 0..k {
            sum = sum + (z[c] - zmax).exp();
        }
        total = total + sum.ln() + zmax - z[labels[j]];
    }
    total / T::from(m).unwrap()
}
