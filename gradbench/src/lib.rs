//! A [GradBench](https://github.com/gradbench/gradbench) tool for `autodiff`.
//!
//! Each eval's functions are written in `evals/` as a user writes them, under `#[differentiable]`, and
//! their derivatives are the items the macro generates (`_grad_into`, `_vjp`, `_hvp`). The protocol
//! (one JSON object a line on stdin, one answer a line on stdout) is in [`respond`]; the binary
//! `autodiff-gradbench` runs it over stdin.

pub mod evals;

use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The name this tool gives in its answer to `start`.
pub const TOOL: &str = "autodiff";

/// One function of an eval applied to one parsed input: `run` is what is timed, `output` turns the
/// last result into the eval's JSON shape (not timed, as parsing is not).
pub trait Job {
    /// Computes the function once, keeping the result.
    fn run(&mut self);
    /// The result of the last `run`, in the eval's output shape.
    fn output(&self) -> Value;
}

struct ClosureJob<S, R, O> {
    state: S,
    run: R,
    output: O,
}

impl<S, R: FnMut(&mut S), O: Fn(&S) -> Value> Job for ClosureJob<S, R, O> {
    fn run(&mut self) {
        (self.run)(&mut self.state)
    }
    fn output(&self) -> Value {
        (self.output)(&self.state)
    }
}

/// A [`Job`] from the state it owns (inputs and result buffers), the timed step and the output.
pub fn job<S: 'static>(
    state: S,
    run: impl FnMut(&mut S) + 'static,
    output: impl Fn(&S) -> Value + 'static,
) -> Box<dyn Job> {
    Box::new(ClosureJob { state, run, output })
}

/// Runs `job` at least `min_runs` times and until the runs add up to `min_seconds`; the duration of
/// each run.
pub fn time_runs(job: &mut dyn Job, min_runs: usize, min_seconds: f64) -> Vec<Duration> {
    let min_total = Duration::from_secs_f64(min_seconds.max(0.0));
    let mut timings = Vec::new();
    let mut total = Duration::ZERO;
    while timings.len() < min_runs.max(1) || total < min_total {
        let start = Instant::now();
        job.run();
        let elapsed = start.elapsed();
        total += elapsed;
        timings.push(elapsed);
    }
    timings
}

/// The answer to one message line of the protocol (without its newline).
pub fn respond(line: &str) -> Value {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(_) => return json!({}),
    };
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    match message.get("kind").and_then(Value::as_str) {
        Some("start") => json!({ "id": id, "tool": TOOL }),
        Some("define") => {
            let module = message.get("module").and_then(Value::as_str).unwrap_or("");
            json!({ "id": id, "success": evals::MODULES.contains(&module) })
        }
        Some("evaluate") => match evaluate(&message) {
            Ok((output, timings)) => {
                let timings: Vec<Value> = timings
                    .iter()
                    .map(|t| json!({ "name": "evaluate", "nanoseconds": t.as_nanos() as u64 }))
                    .collect();
                json!({ "id": id, "success": true, "output": output, "timings": timings })
            }
            Err(error) => json!({ "id": id, "success": false, "error": error }),
        },
        _ => json!({ "id": id }),
    }
}

fn evaluate(message: &Value) -> Result<(Value, Vec<Duration>), String> {
    let field = |name: &str| {
        message
            .get(name)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("evaluate: no string field `{name}`"))
    };
    let (module, function) = (field("module")?, field("function")?);
    let input = message.get("input").ok_or("evaluate: no field `input`")?;
    let min_runs = input.get("min_runs").and_then(Value::as_u64).unwrap_or(1) as usize;
    let min_seconds = input
        .get("min_seconds")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let mut job = evals::prepare(module, function, input)?;
    let timings = time_runs(job.as_mut(), min_runs, min_seconds);
    Ok((job.output(), timings))
}

/// Input fields, read with a message that names the field when it is missing or malformed.
pub mod input {
    use serde_json::Value;

    fn get<'a>(input: &'a Value, name: &str) -> Result<&'a Value, String> {
        input
            .get(name)
            .ok_or_else(|| format!("input: no field `{name}`"))
    }

    /// A number field.
    pub fn float(input: &Value, name: &str) -> Result<f64, String> {
        get(input, name)?
            .as_f64()
            .ok_or_else(|| format!("input: `{name}` is not a number"))
    }

    /// A non-negative integer field.
    pub fn usize(input: &Value, name: &str) -> Result<usize, String> {
        get(input, name)?
            .as_u64()
            .map(|v| v as usize)
            .ok_or_else(|| format!("input: `{name}` is not a non-negative integer"))
    }

    fn floats_of(value: &Value, name: &str) -> Result<Vec<f64>, String> {
        value
            .as_array()
            .ok_or_else(|| format!("input: `{name}` is not an array"))?
            .iter()
            .map(|v| {
                v.as_f64()
                    .ok_or_else(|| format!("input: `{name}` holds a non-number"))
            })
            .collect()
    }

    /// An array of numbers.
    pub fn floats(input: &Value, name: &str) -> Result<Vec<f64>, String> {
        floats_of(get(input, name)?, name)
    }

    /// An array of arrays of numbers, flattened row by row; with the length of a row (0 if empty).
    pub fn matrix(input: &Value, name: &str) -> Result<(Vec<f64>, usize), String> {
        let rows = get(input, name)?
            .as_array()
            .ok_or_else(|| format!("input: `{name}` is not an array of rows"))?;
        let mut flat = Vec::new();
        let mut width = None;
        for row in rows {
            let row = floats_of(row, name)?;
            if *width.get_or_insert(row.len()) != row.len() {
                return Err(format!("input: the rows of `{name}` differ in length"));
            }
            flat.extend(row);
        }
        Ok((flat, width.unwrap_or(0)))
    }
}

/// `flat` (row-major, rows of `width`) as an array of rows.
pub fn rows(flat: &[f64], width: usize) -> Value {
    if width == 0 {
        return Value::Array(Vec::new());
    }
    flat.chunks(width).map(|row| row.to_vec()).collect()
}
