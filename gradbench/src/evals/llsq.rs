//! `llsq`: a linear least-squares objective, `1/2 sum_i (s_i - sum_j x_j t_i^j)^2` with
//! `t_i = -1 + 2 i / (n - 1)` and `s_i = sign(t_i)`.

use crate::{input, job, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// The objective; `n` is the number of sample points.
// llsq_grad_into(x: &[f64], n: usize, grad: &mut [f64]) -> f64
#[differentiable(wrt(x))]
pub fn llsq(x: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        let t = -1.0 + i as f64 * 2.0 / (n as f64 - 1.0);
        // sign(t), 0 at 0 (f64::signum gives 1 there).
        let mut residual = if t > 0.0 {
            1.0
        } else if t < 0.0 {
            -1.0
        } else {
            0.0
        };
        let mut power = 1.0;
        for &xj in x {
            residual -= xj * power;
            power *= t;
        }
        sum += residual * residual;
    }
    sum / 2.0
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let x = input::floats(input, "x")?;
    let n = input::usize(input, "n")?;
    match function {
        "primal" => Ok(job(
            (x, 0.0),
            move |(x, value)| *value = llsq(x, n),
            |(_, value)| json!(value),
        )),
        "gradient" => {
            let grad = vec![0.0; x.len()];
            Ok(job(
                (x, grad),
                move |(x, grad)| {
                    llsq_grad_into(x, n, grad);
                },
                |(_, grad)| json!(grad),
            ))
        }
        _ => Err(super::unknown("llsq", function)),
    }
}
