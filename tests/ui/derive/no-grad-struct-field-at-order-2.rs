// At `order = 2`, a `#[no_grad]` field that holds a struct is not in its parent's values view (the floats
// that the higher-order items differentiate): reading its floats is an error saying what to write instead.
// (First order reads them as constants.)
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
struct Neuron {
    a: f64,
}

#[derive(Clone, Debug, Differentiable)]
struct Tissue {
    neuron: Neuron,
    #[no_grad]
    reference: Neuron,
}

#[differentiable(order = 2)]
fn beside_reference(p: &Tissue, x: f64) -> f64 {
    p.neuron.a * x + p.reference.a
}

fn main() {
    let n = Neuron { a: 0.5 };
    let p = Tissue { neuron: n.clone(), reference: n };
    let _ = beside_reference_hessian(&p, 2.0);
}
