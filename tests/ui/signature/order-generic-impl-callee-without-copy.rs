// In a generic `impl`, an associated function has a copy over a float type of its own (which the `impl`'s
// own methods with `order = K` call on dual numbers, `Self::g(x)`) where its body names `Self` only to call
// other associated functions or inside `T::from(..)`. One that reads `Self::HALF` otherwise has none: one
// error, spanned on it, saying why (not rustc's missing `__halved_over`). A caller outside the `impl`
// (`S::halved(x)`, `S::<f64>::halved(x)` in an `f64` function with `order = 2`) reaches `halved` itself at
// its own float type and needs no copy (tests/higher_calls.rs).
use autodiff::{differentiable, Differentiable, Float};

#[derive(Clone, Debug, Differentiable)]
struct S<T> {
    k: T,
}

impl<T: Float> S<T> {
    const HALF: f64 = 0.5;

    #[differentiable]
    fn halved(x: T) -> T {
        let h = Self::HALF;
        x * T::from(h).unwrap()
    }

    #[differentiable(order = 2)]
    fn energy(&self, x: T) -> T {
        Self::halved(x) * self.k
    }
}

fn main() {
    let _ = S { k: 2.0 }.energy_hessian(0.7);
}
