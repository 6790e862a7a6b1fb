use autodiff::gradient_of;

mod outside {
    pub fn constant() -> f64 {
        1.0
    }
}

#[gradient_of(outside::constant)]
fn constant_vjp() -> f64 {
    0.0
}

fn main() {}
