use autodiff::gradient_of;

mod outside {
    pub fn polar(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }
}

// `dy` must have the function's output type, `(f64, f64)`.
#[gradient_of(outside::polar)]
fn polar_vjp(r: f64, t: f64, dy: f64) -> (f64, f64) {
    (dy * t.cos(), -dy * r * t.sin())
}

fn main() {}
