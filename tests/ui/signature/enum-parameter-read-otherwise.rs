use autodiff::differentiable;
use std::cmp::Ordering;

// A parameter of a type that the file does not declare (here imported) and that the body only matches on
// is data (`tests/forms_probe.rs`); one whose value is used otherwise (here copied first) is taken for a
// parameter struct, and the error says what to do. (An enum the file declares is data however the body
// uses it: `tests/data_structs39.rs`.)
#[differentiable]
fn f(x: f64, order: Ordering) -> f64 {
    let m = order;
    match m {
        Ordering::Less => x,
        _ => x * x,
    }
}

fn main() {}
