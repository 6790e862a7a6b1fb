use autodiff::differentiable;

// Functions with output parameters whose bodies have one error each: the callers of their generated items
// (an output's cotangent in `_vjp`, its tangent buffer in `_jvp`) and a differentiable caller, which
// reaches them through their companions, must not add any.
#[differentiable]
fn rhs(y: &[f64], dydt: &mut [f64]) -> f64 {
    dydt[0] = y[0].midpoint(1.0);
    dydt[1] = y[1];
    y[0]
}

#[differentiable]
fn fill(y: &[f64], out: &mut [f64; 2]) {
    out[0] = y[0].midpoint(1.0);
    out[1] = y[1];
}

// The return type has an error, so the shapes are not known: the stubs still take a cotangent and a
// tangent buffer for the output.
#[differentiable]
fn count(x: f64, out: &mut [f64]) -> usize {
    out[0] = x;
    1
}

#[differentiable]
fn caller(y: &[f64]) -> f64 {
    let mut k = vec![0.0; 2];
    let v = rhs(y, &mut k);
    let mut a = [0.0; 2];
    fill(y, &mut a);
    v * k[0] + a[1]
}

fn main() {
    let y = [1.0, 2.0];
    let mut out = [0.0; 2];
    let (v, g): (f64, Vec<f64>) = rhs_vjp(&y, &mut out, 1.0, &[1.0, 0.0]);
    let (u, t): (f64, f64) = rhs_jvp(&y, &mut out, vec![1.0, 0.0], &mut [0.0; 2]);
    let mut o = [0.0; 2];
    let gy: Vec<f64> = fill_vjp(&y, &mut o, &[1.0, 1.0]);
    let () = fill_jvp(&y, &mut o, vec![1.0, 0.0], &mut [0.0; 2]);
    let (w, gc) = caller_grad(&y);
    let (c, dc): (usize, f64) = count_vjp(1.0, &mut out, 1, &[1.0, 0.0]);
    let (e, de): (usize, usize) = count_jvp(1.0, &mut out, 1.0, &mut [0.0; 2]);
    let _ = (v, g, u, t, gy, w, gc, c, dc, e, de);
}
