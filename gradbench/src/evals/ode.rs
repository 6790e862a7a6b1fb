//! `ode`: `y_0' = x_0`, `y_i' = x_i y_{i-1}`, `y(0) = 0`, integrated to t = 2 by `s` steps of RK4;
//! the gradient is that of the last element of `y` with respect to `x`.

use crate::{input, job, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// The right-hand side `dy/dt`.
///
/// (Written as an output parameter, `fn ode_rhs(x, y, dydt: &mut [f64])`, the calls below are
/// rejected by the macro today, so it returns a `Vec`.)
#[differentiable]
pub fn ode_rhs(x: &[f64], y: &[f64]) -> Vec<f64> {
    let mut dydt = vec![0.0; x.len()];
    dydt[0] = x[0];
    for i in 1..x.len() {
        dydt[i] = x[i] * y[i - 1];
    }
    dydt
}

/// `y(2)` after `s` steps of classic RK4.
// ode_vjp(x: &[f64], s: usize, d_ret: Vec<f64>) -> (Vec<f64>, Vec<f64>)
#[differentiable(wrt(x))]
pub fn ode(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let h = 2.0 / s as f64;
    let mut y = vec![0.0; n];
    let mut y_tmp = vec![0.0; n];
    for _ in 0..s {
        let k1 = ode_rhs(x, &y);
        for i in 0..n {
            y_tmp[i] = y[i] + h * k1[i] / 2.0;
        }
        let k2 = ode_rhs(x, &y_tmp);
        for i in 0..n {
            y_tmp[i] = y[i] + h * k2[i] / 2.0;
        }
        let k3 = ode_rhs(x, &y_tmp);
        for i in 0..n {
            y_tmp[i] = y[i] + h * k3[i];
        }
        let k4 = ode_rhs(x, &y_tmp);
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let x = input::floats(input, "x")?;
    let s = input::usize(input, "s")?;
    if x.is_empty() {
        return Err("ode: `x` is empty".to_string());
    }
    match function {
        "primal" => Ok(job(
            (x, Vec::new()),
            move |(x, y)| *y = ode(x, s),
            |(_, y)| json!(y),
        )),
        "gradient" => {
            // The cotangent that picks the last element of y.
            let mut last = vec![0.0; x.len()];
            *last.last_mut().expect("x is not empty") = 1.0;
            Ok(job(
                (x, Vec::new()),
                move |(x, grad)| *grad = ode_vjp(x, s, last.clone()).1,
                |(_, grad)| json!(grad),
            ))
        }
        _ => Err(super::unknown("ode", function)),
    }
}
