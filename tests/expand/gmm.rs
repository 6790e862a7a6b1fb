use autodiff::differentiable;
#[differentiable]
pub fn logsumexp(z: &[f64]) -> f64 {
    let mut max = z[0];
    for &v in z {
        max = max.max(v);
    }
    let mut sum = 0.0;
    for &v in z {
        sum += (v - max).exp();
    }
    max + sum.ln()
}
#[differentiable(wrt(mu, q, l))]
pub fn gmm_likelihood(alpha: &[f64], mu: &[f64], q: &[f64], l: &[f64], x: &[f64], d: usize) -> f64 {
    let k = alpha.len();
    let n = x.len() / d;
    let l_size = d * (d - 1) / 2;
    let mut q_diag = vec![0.0; k * d];
    for ik in 0..k {
        for j in 0..d {
            q_diag[ik * d + j] = q[ik * d + j].exp();
        }
    }
    let mut centered = vec![0.0; d];
    let mut q_centered = vec![0.0; d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - mu[ik * d + j];
            }
            for j in 0..d {
                q_centered[j] = q_diag[ik * d + j] * centered[j];
            }
            let mut li = ik * l_size;
            for i in 0..d {
                for j in i + 1..d {
                    q_centered[j] += l[li] * centered[i];
                    li += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += q_centered[j] * q_centered[j];
            }
            main_term[ik] = alpha[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    slse
}
