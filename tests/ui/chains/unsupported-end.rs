use autodiff::differentiable;

// `.nth_back(k)` ends no differentiable chain (`.last()`, which this case showed before, does now, and so
// do `.find(..)`, `.nth(k)` and `.find_map(..)`: tests/chains30.rs, tests/chains31.rs).
#[differentiable]
fn second_to_last_square(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).nth_back(1).unwrap_or(0.0)
}

// `.find_map(f)` where `f` is an `if`/`else` of `Some(..)` and `None`; not a `match`, not an `else if`.
#[differentiable]
fn first_large_square(x: &[f64]) -> f64 {
    x.iter()
        .map(|v| v * v)
        .find_map(|v| match v > 1.0 {
            true => Some(v),
            false => None,
        })
        .unwrap_or(0.0)
}

fn main() {}
