use autodiff::differentiable;

// A `break` inside the value of a `match` is the one error, in a function with an enum parameter that the
// body only matches on: its stand-in items take the enum for data as the function would (rustc's "`Mode`
// is not `Differentiable`" at the parameter followed before), and a caller passing a variant gets none.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Plain,
    Capped,
}

#[differentiable]
fn capped(x: &[f64], mode: Mode) -> f64 {
    let mut total = 0.0;
    let mut i = 0;
    while i < x.len() {
        let v = match mode {
            Mode::Plain => x[i],
            Mode::Capped => {
                if i >= 2 {
                    break;
                }
                x[i]
            }
        };
        total += v;
        i += 1;
    }
    total
}

#[differentiable]
fn caller(x: &[f64]) -> f64 {
    capped(x, Mode::Plain) + capped(x, Mode::Capped)
}

fn main() {
    let _ = capped_grad(&[1.0], Mode::Plain);
    let _ = caller_grad(&[1.0]);
}
