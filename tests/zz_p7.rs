use autodiff::differentiable;

#[differentiable]
fn blk(x: f64) -> f64 {
    let v = 'b: {
        let mut i = 0;
        while i < 3 { if x > 1.0 { break 'b x * 2.0; } i += 1; }
        x
    };
    v
}

#[test]
fn p7() { }
