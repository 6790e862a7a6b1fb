// A field of a nested struct (`p.cfg.scale`) is reached through the nested struct's derive, also where the
// field holding it is `#[no_grad]`: a nested struct that does not derive `Differentiable` is an error that
// says to derive it (with `#[no_grad]` on its constant fields), beside the missing helpers it would give.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug)]
struct Config {
    scale: f64,
}

#[derive(Clone, Debug, Differentiable)]
struct Params {
    w: f64,
    #[no_grad]
    cfg: Config,
}

#[differentiable]
fn f(p: &Params, x: f64) -> f64 {
    p.w * x * p.cfg.scale
}

fn main() {}
