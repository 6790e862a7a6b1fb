// `order = 2` on a function that keeps its parameter struct constant and only reads its fields: the
// hidden function of the fields `__reads_fields`, and `__reads_whole`, the forwarding items (and their
// generic copy) an `order = K` caller passing the struct on whole (`reads(p, x)`) calls.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
struct Cfg {
    b: f64,
    w: Vec<f64>,
    #[no_grad]
    n: usize,
}

#[differentiable(wrt(x), order = 2)]
fn reads(p: &Cfg, x: &[f64]) -> f64 {
    let mut s = p.b * x[0];
    for i in 0..p.n {
        s += p.w[i] * x[i] * x[i];
    }
    s
}
