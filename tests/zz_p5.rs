use autodiff::differentiable;

const LIMIT: usize = 3;

#[derive(Clone, Copy, PartialEq)]
enum Kind { A, B }

#[differentiable(order = 2)]
fn m(x: f64, n: usize, k: Kind) -> f64 {
    let a = match n {
        LIMIT => x * x,
        _ => x,
    };
    let b = match k {
        Kind::A => a * 2.0,
        Kind::B => a.sin(),
    };
    b
}

#[test]
fn p5() { let (v, g) = m_grad(1.5, 3, Kind::B); println!("{v} {g:?}"); }
