//! `lstm`: ADBench's LSTM loss (diagonal weight matrices), and its gradient with respect to the
//! main and extra parameters.
//!
//! Flat layouts, as GradBench's rows concatenated: `main_params` holds, for each of the `l` layers,
//! a row of weights and a row of biases, each `[forget, ingate, outgate, change]` of `b` values;
//! `extra_params` is `[in_weight, out_weight, out_bias]`; `state` holds, per layer, the hidden and
//! the cell values; `sequence` is `c` rows of `b`.

use crate::{input, job, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// The logistic function.
#[differentiable]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The mean negative log-likelihood of predicting each character of `sequence` from the one before.
// lstm_objective_grad_into(main_params, extra_params, state, sequence, l, b,
//     grad: (&mut [f64], &mut [f64])) -> f64
#[differentiable(wrt(main_params, extra_params))]
pub fn lstm_objective(
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
    l: usize,
    b: usize,
) -> f64 {
    let c = sequence.len() / b;
    let mut state = state.to_vec();
    let mut layer_input = vec![0.0; b];
    let mut prediction = vec![0.0; b];
    let mut total = 0.0;
    let mut count = 0;
    for t in 0..c - 1 {
        for i in 0..b {
            layer_input[i] = sequence[t * b + i] * extra_params[i];
        }
        for layer in 0..l {
            let p = 8 * b * layer;
            let s = 2 * b * layer;
            for i in 0..b {
                let forget =
                    sigmoid(layer_input[i] * main_params[p + i] + main_params[p + 4 * b + i]);
                let ingate =
                    sigmoid(state[s + i] * main_params[p + b + i] + main_params[p + 5 * b + i]);
                let outgate = sigmoid(
                    layer_input[i] * main_params[p + 2 * b + i] + main_params[p + 6 * b + i],
                );
                let change =
                    (state[s + i] * main_params[p + 3 * b + i] + main_params[p + 7 * b + i]).tanh();
                state[s + b + i] = state[s + b + i] * forget + ingate * change;
                state[s + i] = outgate * state[s + b + i].tanh();
            }
            for i in 0..b {
                layer_input[i] = state[s + i];
            }
        }
        for i in 0..b {
            prediction[i] = layer_input[i] * extra_params[b + i] + extra_params[2 * b + i];
        }
        // ADBench's log-sum-exp, with its quirk: 2 is added to the sum.
        let mut sum = 0.0;
        for i in 0..b {
            sum += prediction[i].exp();
        }
        let lse = (sum + 2.0).ln();
        for i in 0..b {
            total += sequence[(t + 1) * b + i] * (prediction[i] - lse);
        }
        count += b;
    }
    -total / count as f64
}

/// The parsed input, rows concatenated.
pub struct Input {
    pub main_params: Vec<f64>,
    pub extra_params: Vec<f64>,
    pub state: Vec<f64>,
    pub sequence: Vec<f64>,
    /// Layers.
    pub l: usize,
    /// Values per character.
    pub b: usize,
}

impl Input {
    /// Reads GradBench's lstm input.
    pub fn parse(input: &Value) -> Result<Self, String> {
        let (main_params, width) = input::matrix(input, "main_params")?;
        let (sequence, b) = input::matrix(input, "sequence")?;
        if b == 0 || width != 4 * b || main_params.len() % (8 * b) != 0 {
            return Err("lstm: main_params rows are not 4 b long".to_string());
        }
        Ok(Input {
            l: main_params.len() / (8 * b),
            main_params,
            extra_params: input::matrix(input, "extra_params")?.0,
            state: input::matrix(input, "state")?.0,
            sequence,
            b,
        })
    }

    /// The loss at this input.
    pub fn objective(&self) -> f64 {
        lstm_objective(
            &self.main_params,
            &self.extra_params,
            &self.state,
            &self.sequence,
            self.l,
            self.b,
        )
    }

    /// Writes the gradient into `main` and `extra`; returns the loss.
    pub fn gradient_into(&self, main: &mut [f64], extra: &mut [f64]) -> f64 {
        lstm_objective_grad_into(
            &self.main_params,
            &self.extra_params,
            &self.state,
            &self.sequence,
            self.l,
            self.b,
            (main, extra),
        )
    }
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let input = Input::parse(input)?;
    match function {
        "objective" => Ok(job(
            (input, 0.0),
            |(input, value)| *value = input.objective(),
            |(_, value)| json!(value),
        )),
        "jacobian" => {
            let main = vec![0.0; input.main_params.len()];
            let extra = vec![0.0; input.extra_params.len()];
            Ok(job(
                (input, main, extra),
                |(input, main, extra)| {
                    input.gradient_into(main, extra);
                },
                |(_, main, extra)| json!([main.as_slice(), extra.as_slice()].concat()),
            ))
        }
        _ => Err(super::unknown("lstm", function)),
    }
}
