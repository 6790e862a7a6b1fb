use autodiff::differentiable;

// A parameter of a type of the user's that the body only matches on is data (`tests/forms_probe.rs`);
// one whose value is used otherwise (here multiplied) is taken for a parameter struct, and the error
// says what to do.
#[derive(Clone, Copy)]
pub enum Mode {
    Plain,
    Squared,
}

#[differentiable]
fn f(x: f64, mode: Mode) -> f64 {
    let m = mode;
    match m {
        Mode::Plain => x,
        Mode::Squared => x * x,
    }
}

fn main() {}
