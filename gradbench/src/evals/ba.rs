//! `ba`: bundle adjustment (ADBench). The objective is the reprojection error of each observation
//! and a weight error per observation; the Jacobian is sparse, one 2 x 15 block per observation
//! (camera, point, weight) and one entry per weight error, each block from the `f_jacobian` the
//! macro generates for one observation's error.
//!
//! GradBench sends one camera, point, weight and feature, duplicated `n`, `m` and `p` times; they are
//! duplicated here as the reference does, and every observation is computed.

use crate::{input, job, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// Parameters of one camera: rotation (3, angle-axis), centre (3), focal length, principal point (2),
/// radial distortion (2).
pub const CAMERA_PARAMS: usize = 11;

/// The weighted reprojection error of the point `x` (3) seen by the camera `cam` (11) at `feat` (2):
/// the point is moved to the camera's frame (Rodrigues' rotation), projected, distorted radially,
/// scaled and shifted, and compared with the feature.
// reprojection_error_jacobian(cam, x, w, feat) -> Vec<Vec<f64>>: 2 rows, 15 columns (cam, x, w)
#[differentiable(wrt(cam, x, w))]
pub fn reprojection_error(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> [f64; 2] {
    let xo0 = x[0] - cam[3];
    let xo1 = x[1] - cam[4];
    let xo2 = x[2] - cam[5];
    let sqtheta = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    let mut xc = [0.0; 3];
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let cos = theta.cos();
        let sin = theta.sin();
        let w0 = cam[0] / theta;
        let w1 = cam[1] / theta;
        let w2 = cam[2] / theta;
        let tmp = (w0 * xo0 + w1 * xo1 + w2 * xo2) * (1.0 - cos);
        xc[0] = xo0 * cos + (w1 * xo2 - w2 * xo1) * sin + w0 * tmp;
        xc[1] = xo1 * cos + (w2 * xo0 - w0 * xo2) * sin + w1 * tmp;
        xc[2] = xo2 * cos + (w0 * xo1 - w1 * xo0) * sin + w2 * tmp;
    } else {
        xc[0] = xo0 + (cam[1] * xo2 - cam[2] * xo1);
        xc[1] = xo1 + (cam[2] * xo0 - cam[0] * xo2);
        xc[2] = xo2 + (cam[0] * xo1 - cam[1] * xo0);
    }
    let p0 = xc[0] / xc[2];
    let p1 = xc[1] / xc[2];
    let rsq = p0 * p0 + p1 * p1;
    let distortion = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let proj0 = p0 * distortion * cam[6] + cam[7];
    let proj1 = p1 * distortion * cam[6] + cam[8];
    [w * (proj0 - feat[0]), w * (proj1 - feat[1])]
}

/// The weight error `1 - w^2`.
// weight_error_grad(w) -> (f64, f64)
#[differentiable]
pub fn weight_error(w: f64) -> f64 {
    1.0 - w * w
}

/// The input, duplicated: `obs[2 i]` and `obs[2 i + 1]` are the camera and point of observation i.
pub struct Input {
    pub n: usize,
    pub m: usize,
    pub cams: Vec<f64>,
    pub x: Vec<f64>,
    pub w: Vec<f64>,
    pub obs: Vec<usize>,
    pub feats: Vec<f64>,
}

impl Input {
    /// Reads GradBench's ba input and duplicates it as GradBench's reference does.
    pub fn parse(input: &Value) -> Result<Self, String> {
        let n = input::usize(input, "n")?;
        let m = input::usize(input, "m")?;
        let p = input::usize(input, "p")?;
        let cam = input::floats(input, "cam")?;
        let x = input::floats(input, "x")?;
        let feat = input::floats(input, "feat")?;
        if cam.len() != CAMERA_PARAMS || x.len() != 3 || feat.len() != 2 || n == 0 || m == 0 {
            return Err("ba: cam needs 11 values, x 3, feat 2, and n, m at least 1".to_string());
        }
        Ok(Input {
            n,
            m,
            cams: cam.repeat(n),
            x: x.repeat(m),
            w: vec![input::float(input, "w")?; p],
            obs: (0..p).flat_map(|i| [i % n, i % m]).collect(),
            feats: feat.repeat(p),
        })
    }

    /// The camera, point, weight and feature of observation `i`.
    fn observation(&self, i: usize) -> (&[f64], &[f64], f64, &[f64]) {
        let (c, p) = (self.obs[2 * i], self.obs[2 * i + 1]);
        (
            &self.cams[c * CAMERA_PARAMS..(c + 1) * CAMERA_PARAMS],
            &self.x[3 * p..3 * p + 3],
            self.w[i],
            &self.feats[2 * i..2 * i + 2],
        )
    }
}

/// The objective's result: 2 reprojection errors and 1 weight error per observation.
#[derive(Default)]
pub struct Objective {
    pub reproj_err: Vec<f64>,
    pub w_err: Vec<f64>,
}

/// Computes the objective into `out`.
pub fn objective(input: &Input, out: &mut Objective) {
    let p = input.w.len();
    out.reproj_err.resize(2 * p, 0.0);
    out.w_err.resize(p, 0.0);
    for i in 0..p {
        let (cam, x, w, feat) = input.observation(i);
        out.reproj_err[2 * i..2 * i + 2].copy_from_slice(&reprojection_error(cam, x, w, feat));
        out.w_err[i] = weight_error(w);
    }
}

/// The Jacobian in compressed sparse rows: `rows[r]..rows[r + 1]` index the columns and values of
/// row r. Rows are the 2p reprojection errors then the p weight errors; columns the 11 n camera
/// parameters, the 3 m point coordinates and the p weights.
#[derive(Default)]
pub struct SparseJacobian {
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    pub vals: Vec<f64>,
}

/// Computes the Jacobian into `jac`, block by block.
pub fn jacobian(input: &Input, jac: &mut SparseJacobian) {
    let p = input.w.len();
    let block = CAMERA_PARAMS + 3 + 1;
    let point_cols = CAMERA_PARAMS * input.n;
    let weight_cols = point_cols + 3 * input.m;
    jac.rows.clear();
    jac.cols.clear();
    jac.vals.clear();
    jac.rows.reserve(3 * p + 1);
    jac.cols.reserve(2 * block * p + p);
    jac.vals.reserve(2 * block * p + p);
    jac.rows.push(0);
    for i in 0..p {
        let (cam, x, w, feat) = input.observation(i);
        let (c, pt) = (input.obs[2 * i], input.obs[2 * i + 1]);
        let rows = reprojection_error_jacobian(cam, x, w, feat);
        for row in &rows {
            jac.rows.push(jac.rows.last().copied().unwrap_or(0) + block);
            jac.cols
                .extend((0..CAMERA_PARAMS).map(|j| CAMERA_PARAMS * c + j));
            jac.cols.extend((0..3).map(|j| point_cols + 3 * pt + j));
            jac.cols.push(weight_cols + i);
            jac.vals.extend_from_slice(row);
        }
    }
    for i in 0..p {
        jac.rows.push(jac.rows.last().copied().unwrap_or(0) + 1);
        jac.cols.push(weight_cols + i);
        jac.vals.push(weight_error_grad(input.w[i]).1);
    }
}

/// The first `2 (11 + 4)` entries and the last of `v`, as GradBench transmits the Jacobian.
fn head_and_last<T: Copy + Into<Value>>(v: &[T]) -> Value {
    let head = 2 * (CAMERA_PARAMS + 4);
    let mut out: Vec<Value> = v.iter().take(head).map(|&x| x.into()).collect();
    if let Some(&last) = v.last() {
        out.push(last.into());
    }
    Value::Array(out)
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let input = Input::parse(input)?;
    if input.w.is_empty() {
        return Err("ba: p is 0".to_string());
    }
    match function {
        "objective" => Ok(job(
            (input, Objective::default()),
            |(input, out)| objective(input, out),
            |(_, out)| {
                json!({
                    "reproj_error": { "elements": &out.reproj_err[..2], "repeated": out.reproj_err.len() / 2 },
                    "w_err": { "element": out.w_err[0], "repeated": out.w_err.len() },
                })
            },
        )),
        "jacobian" => Ok(job(
            (input, SparseJacobian::default()),
            |(input, jac)| jacobian(input, jac),
            |(_, jac)| {
                json!({
                    "rows": head_and_last(&jac.rows),
                    "cols": head_and_last(&jac.cols),
                    "vals": head_and_last(&jac.vals),
                })
            },
        )),
        _ => Err(super::unknown("ba", function)),
    }
}
