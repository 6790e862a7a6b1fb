use autodiff::gradient_of;

mod outside {
    pub fn scaled(x: f64) -> f64 {
        2.0 * x
    }
}

#[gradient_of(outside::scaled)]
fn scaled_vjp(x: f32, dy: f32) -> f32 {
    let _ = x;
    dy * 2.0
}

fn main() {}
