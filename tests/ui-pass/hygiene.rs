// The user's names may equal the names of the macro's temporaries (`__v0`, `__d_x`, `__dot_x`, `z_1`) and of
// its fixed parameters (`d_ret`, `tangent`): they neither capture nor are captured by the generated code.
use autodiff::differentiable;

#[differentiable]
fn f(x: f64, d_ret: f64, tangent: f64) -> f64 {
    let __v0 = x * d_ret;
    let __d_x = __v0.sin();
    let __dot_x = tangent * tangent;
    let z = __d_x + __dot_x;
    let z_1 = z * x;
    let __v1 = z_1 + d_ret;
    __v1 * tangent
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

fn main() {
    let (x, d, t): (f64, f64, f64) = (0.7, 1.3, -0.4);
    // f = ((sin(x d) + t^2) x + d) t
    let s = (x * d).sin();
    let c = (x * d).cos();
    let value = ((s + t * t) * x + d) * t;
    let df_dx = (d * c * x + s + t * t) * t;
    let df_dd = (x * c * x + 1.0) * t;
    let df_dt = (s + t * t) * x + d + 2.0 * t * x * t;

    assert!(close(f(x, d, t), value));

    let (v, (gx, gd, gt)) = f_grad(x, d, t);
    assert!(close(v, value));
    assert!(close(gx, df_dx), "{gx} vs {df_dx}");
    assert!(close(gd, df_dd), "{gd} vs {df_dd}");
    assert!(close(gt, df_dt), "{gt} vs {df_dt}");

    let (v, (gx, gd, gt)) = f_vjp(x, d, t, 2.0);
    assert!(close(v, value));
    assert!(close(gx, 2.0 * df_dx) && close(gd, 2.0 * df_dd) && close(gt, 2.0 * df_dt));

    let (v, dot) = f_jvp(x, d, t, (1.0, 0.5, -2.0));
    assert!(close(v, value));
    assert!(close(dot, df_dx + 0.5 * df_dd - 2.0 * df_dt), "{dot}");
}
