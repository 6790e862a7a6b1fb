use autodiff::differentiable;

// One error, at the `let`: not a second one at each `return`, nor one about loops.
#[differentiable]
fn pick(x: [f64; 3], k: i32) -> [f64; 3] {
    let y = match k {
        i32::MIN..=-1 => return [x[0] * x[1], x[2], -x[0]],
        0 | 1 => [x[0].sin(), x[1], x[2]],
        _ => {
            if x[0] > 0.0 {
                return [x[2], x[1], x[0]];
            }
            x
        }
    };
    [y[0] + y[1], y[1] * y[2], y[2]]
}

fn main() {}
