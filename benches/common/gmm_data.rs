//! Reading an ADBench GMM instance of `benches/data/` (MIT licence, `benches/data/LICENSE.TXT`), shared by
//! the bench files.

use autodiff_gradbench::evals::gmm;

/// An ADBench GMM instance of `benches/data/` (format in `benches/data/README.md`).
pub fn gmm_instance(file: &str) -> gmm::Input {
    let path = format!("{}/benches/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut numbers = text.split_whitespace().map(|t| {
        t.parse::<f64>()
            .unwrap_or_else(|e| panic!("{path}: {t}: {e}"))
    });
    let mut take = |count: usize| numbers.by_ref().take(count).collect::<Vec<f64>>();
    let header = take(3);
    let (d, k, n) = (header[0] as usize, header[1] as usize, header[2] as usize);
    let l_size = d * (d - 1) / 2;
    let alpha = take(k);
    let mu = take(k * d);
    let (mut q, mut l) = (Vec::new(), Vec::new());
    for _ in 0..k {
        q.extend(take(d));
        l.extend(take(l_size));
    }
    let x = take(n * d);
    let wishart = take(2);
    gmm::Input {
        alpha,
        mu,
        q,
        l,
        x,
        d,
        m: wishart[1] as usize,
        gamma: wishart[0],
    }
}
