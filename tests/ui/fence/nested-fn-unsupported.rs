// A nested `fn` is differentiated by its own expansion: what it may not contain is reported once, in it.
use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    fn noisy(v: f64) -> f64 {
        println!("{v}");
        v * v
    }
    noisy(x) + x
}

fn main() {}
