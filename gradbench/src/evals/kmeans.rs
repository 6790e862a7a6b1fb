//! `kmeans`: the k-means cost `sum_i min_j |C_j - P_i|^2`, and the Newton direction `J / diag(H)`
//! with respect to the centroids.

use crate::{input, job, rows, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// The cost of the centroids (`k x d`, row-major) for the points (`n x d`, row-major).
// kmeans_cost_hvp(points, centroids, d, v: Vec<f64>) -> (f64, Vec<f64>, Vec<f64>)
#[differentiable(wrt(centroids), order = 2)]
pub fn kmeans_cost(points: &[f64], centroids: &[f64], d: usize) -> f64 {
    let n = points.len() / d;
    let k = centroids.len() / d;
    let mut cost = 0.0;
    for i in 0..n {
        let mut closest = f64::INFINITY;
        for j in 0..k {
            let mut dist = 0.0;
            for l in 0..d {
                let diff = points[i * d + l] - centroids[j * d + l];
                dist += diff * diff;
            }
            closest = closest.min(dist);
        }
        cost += closest;
    }
    cost
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let (points, d) = input::matrix(input, "points")?;
    let (centroids, dc) = input::matrix(input, "centroids")?;
    if d == 0 || d != dc {
        return Err(format!(
            "kmeans: points have {d} coordinates, centroids {dc}"
        ));
    }
    match function {
        "cost" => Ok(job(
            (points, centroids, 0.0),
            move |(points, centroids, cost)| *cost = kmeans_cost(points, centroids, d),
            |(_, _, cost)| json!(cost),
        )),
        "dir" => {
            let ones = vec![1.0; centroids.len()];
            Ok(job(
                (points, centroids, Vec::new()),
                move |(points, centroids, dir)| {
                    // The Hessian is diagonal (each coordinate of each centroid is its own
                    // quadratic), so H times a vector of ones is its diagonal.
                    let (_, grad, h_diag) = kmeans_cost_hvp(points, centroids, d, ones.clone());
                    *dir = grad.iter().zip(&h_diag).map(|(g, h)| g / h).collect();
                },
                move |(_, _, dir)| rows(dir, d),
            ))
        }
        _ => Err(super::unknown("kmeans", function)),
    }
}
