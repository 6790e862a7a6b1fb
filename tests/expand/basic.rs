// The example of API.md: straight-line code, stored nothing, read from locals.
use autodiff::differentiable;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z.exp()
}
