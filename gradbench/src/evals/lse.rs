//! `lse`: LogSumExp by the max trick, and its gradient.

use crate::{input, job, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// `max x + ln sum exp(x_i - max x)`; `order = 2` for the GMM objective's (`benches/higher.rs`).
// logsumexp_grad_into(x: &[f64], grad: &mut [f64]) -> f64
#[differentiable(order = 2)]
pub fn logsumexp(x: &[f64]) -> f64 {
    let mut max = f64::NEG_INFINITY;
    for &v in x {
        max = max.max(v);
    }
    let mut sum = 0.0;
    for &v in x {
        sum += (v - max).exp();
    }
    max + sum.ln()
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let x = input::floats(input, "x")?;
    match function {
        "primal" => Ok(job(
            (x, 0.0),
            |(x, value)| *value = logsumexp(x),
            |(_, value)| json!(value),
        )),
        "gradient" => {
            let grad = vec![0.0; x.len()];
            Ok(job(
                (x, grad),
                |(x, grad)| {
                    logsumexp_grad_into(x, grad);
                },
                |(_, grad)| json!(grad),
            ))
        }
        _ => Err(super::unknown("lse", function)),
    }
}
