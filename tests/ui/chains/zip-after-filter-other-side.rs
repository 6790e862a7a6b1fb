// `.zip(b)` after `.filter(..)` reads `b`'s items by position: `b` is a slice named by a place (`y`,
// `s.field`, `m[i]`), maybe skipped or taken, or a range; a slice computed by a call is refused. So is the
// form over `a.chain(b)`, whose two loops would not both end where the other side does.
use autodiff::differentiable;

fn halves(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| v * 0.5).collect()
}

#[differentiable]
fn computed_other_side(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).zip(halves(x).iter()).map(|(a, b)| a * b).sum::<f64>()
}

#[differentiable]
fn over_a_chain(x: &[f64], y: &[f64]) -> f64 {
    x.iter().chain(y.iter()).filter(|v| **v > 0.0).zip(y.iter()).map(|(a, b)| a * b).sum::<f64>()
}

fn main() {}
