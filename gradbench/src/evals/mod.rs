//! The evals, one module each, with the functions as a user writes them under `#[differentiable]`.

// Index loops, `for i in 0..n { .. a[i * d + j] .. }`, are how numeric code over flat row-major
// buffers is written, and what GradBench's reference implementations do (`copy_from_slice` is not
// in the subset `#[differentiable]` supports).
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

pub mod ba;
pub mod descent;
pub mod det;
pub mod gmm;
pub mod ht;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod ode;
pub mod particle;
pub mod saddle;

use crate::Job;
use serde_json::Value;

/// The modules `define` accepts.
pub const MODULES: &[&str] = &[
    "ba", "det", "gmm", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle",
];

/// The job of `function` of `module` on `input`, or why there is none.
pub fn prepare(module: &str, function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    match module {
        "ba" => ba::prepare(function, input),
        "det" => det::prepare(function, input),
        "gmm" => gmm::prepare(function, input),
        "ht" => ht::prepare(function, input),
        "kmeans" => kmeans::prepare(function, input),
        "llsq" => llsq::prepare(function, input),
        "lse" => lse::prepare(function, input),
        "lstm" => lstm::prepare(function, input),
        "ode" => ode::prepare(function, input),
        "particle" => particle::prepare(function, input),
        "saddle" => saddle::prepare(function, input),
        _ => Err(format!("module `{module}` is not implemented")),
    }
}

/// The error for a function name an eval does not have.
pub(crate) fn unknown(module: &str, function: &str) -> String {
    format!("module `{module}` has no function `{function}`")
}
