use autodiff::differentiable;

// `f` reads the `y` it was made with; inlined in `g`'s body, that `y` would be `g`'s parameter (the
// generated gradient was silently that of `x * x + x + y * y`), and in `.map(|&y| ..)` the element.
#[differentiable]
fn nested(x: f64, y: f64) -> f64 {
    let f = |x: f64| x * y;
    let g = |y: f64| f(y) + y;
    g(x) + f(y)
}

#[differentiable]
fn mapped(xs: &[f64], y: f64) -> f64 {
    let f = |x: f64| x * y;
    let g = |s: f64| xs.iter().map(|&y| f(y)).sum::<f64>() * s;
    g(2.0)
}

fn main() {}
