//! `ht`: hand tracking (ADBench). A hand model of 22 bones is posed by 26 parameters `theta` (global
//! rotation, global translation, and the angles of the fingers' joints), its vertices are skinned
//! (each a weighted sum of its position moved by every bone), and the objective is the distance of
//! each observed point to its corresponding vertex, or, in the "complicated" variant, to a point of
//! its corresponding triangle given by two barycentric coordinates `us` per point.
//!
//! The Jacobian is taken by forward mode, column by column, with `ht_objective_jvp`: one tangent per
//! parameter of `theta`, and two for `us`. Each error depends on its own point's two coordinates
//! only, so one tangent of ones on every point's first coordinate gives the first column of every
//! point's block at once, and likewise the second (GradBench's output puts those two columns first).

use crate::{input, job, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// Entries of a 4 x 4 matrix, row-major.
const M4: usize = 16;

/// The hand model, constant data of the objective; matrices row-major.
pub struct Model {
    /// The parent of each bone (earlier in the order), or -1 for the root.
    pub parents: Vec<i64>,
    /// Each bone's transform relative to its parent at rest, 4 x 4 each.
    pub base_relatives: Vec<f64>,
    /// The inverse of each bone's absolute transform at rest, 4 x 4 each.
    pub inverse_base_absolutes: Vec<f64>,
    /// Homogeneous vertex positions at rest, 4 per vertex.
    pub base_positions: Vec<f64>,
    /// Skinning weights, one per bone for each vertex (`weights[v * bones + b]`).
    pub weights: Vec<f64>,
    /// Vertex indices of the triangles, 3 each.
    pub triangles: Vec<usize>,
    /// Whether the model is mirrored (its x coordinates negated).
    pub is_mirrored: bool,
}

/// The row-major product of two 3 x 3 matrices.
#[differentiable]
pub fn mat3_mul(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut out = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            out[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j];
        }
    }
    out
}

/// The rotation of the angle-axis vector `(a0, a1, a2)` (Rodrigues' formula; the identity for an
/// angle below 1e-4, as ADBench has it).
#[differentiable]
pub fn angle_axis_to_rotation(a0: f64, a1: f64, a2: f64) -> [f64; 9] {
    let norm = (a0 * a0 + a1 * a1 + a2 * a2).sqrt();
    if norm < 1e-4 {
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    }
    let (x, y, z) = (a0 / norm, a1 / norm, a2 / norm);
    let (s, c) = (norm.sin(), norm.cos());
    [
        x * x + (1.0 - x * x) * c,
        x * y * (1.0 - c) - z * s,
        x * z * (1.0 - c) + y * s,
        x * y * (1.0 - c) + z * s,
        y * y + (1.0 - y * y) * c,
        y * z * (1.0 - c) - x * s,
        x * z * (1.0 - c) - y * s,
        z * y * (1.0 - c) + x * s,
        z * z + (1.0 - z * z) * c,
    ]
}

/// The rotation `Rz Ry Rx` of a joint's Euler angles, row-major.
#[differentiable]
pub fn euler_to_rotation(tx: f64, ty: f64, tz: f64) -> [f64; 9] {
    let rx = [
        1.0,
        0.0,
        0.0,
        0.0,
        tx.cos(),
        -tx.sin(),
        0.0,
        tx.sin(),
        tx.cos(),
    ];
    let ry = [
        ty.cos(),
        0.0,
        ty.sin(),
        0.0,
        1.0,
        0.0,
        -ty.sin(),
        0.0,
        ty.cos(),
    ];
    let rz = [
        tz.cos(),
        -tz.sin(),
        0.0,
        tz.sin(),
        tz.cos(),
        0.0,
        0.0,
        0.0,
        1.0,
    ];
    let rzy = mat3_mul(&rz, &ry);
    mat3_mul(&rzy, &rx)
}

/// The residuals (3 per point) of the points `points` (3 each) against the posed hand: against
/// vertex `correspondences[i]`, or, when `us` is not empty, against the point of triangle
/// `correspondences[i]` with barycentric coordinates `us[2 i]`, `us[2 i + 1]`.
// ht_objective_jvp(theta, us, model, correspondences, points, tangent: (Vec<f64>, Vec<f64>))
//     -> (Vec<f64>, Vec<f64>)
#[differentiable(wrt(theta, us))]
pub fn ht_objective(
    theta: &[f64],
    us: &[f64],
    model: &Model,
    correspondences: &[usize],
    points: &[f64],
) -> Vec<f64> {
    let bones = model.parents.len();
    let vertices = model.base_positions.len() / 4;
    // Each bone's transform relative to its parent: its rest transform times the rotation of its
    // joint. Bone b's angles are theta's finger parameters: joints 1 to 3 of finger f (bones
    // 4 f + 2 .. 4 f + 4) bend by one angle, the first of them also spreads by a second one.
    let mut relatives = vec![0.0; bones * M4];
    let mut i_theta = 6;
    for b in 0..bones {
        let mut bend = 0.0;
        let mut spread = 0.0;
        // 0, 1, 2 for those joints; 3 for the others (the wrist, each finger's base, the forearm).
        let finger_joint = if b >= 2 { (b - 2) % 4 } else { 3 };
        if finger_joint < 3 {
            bend = theta[i_theta];
            i_theta += 1;
            if finger_joint == 0 {
                spread = theta[i_theta];
                i_theta += 1;
            }
        }
        // Euler angles in the order x, z, y: (bend, spread, 0).
        let r = euler_to_rotation(bend, 0.0, spread);
        for i in 0..4 {
            for j in 0..3 {
                relatives[b * M4 + i * 4 + j] = model.base_relatives[b * M4 + i * 4] * r[j]
                    + model.base_relatives[b * M4 + i * 4 + 1] * r[3 + j]
                    + model.base_relatives[b * M4 + i * 4 + 2] * r[6 + j];
            }
            relatives[b * M4 + i * 4 + 3] = model.base_relatives[b * M4 + i * 4 + 3];
        }
    }
    // Absolute transforms, parents first; then each bone's skinning transform (its top 3 rows).
    let mut absolutes = vec![0.0; bones * M4];
    for b in 0..bones {
        let parent = model.parents[b];
        if parent < 0 {
            for k in 0..M4 {
                absolutes[b * M4 + k] = relatives[b * M4 + k];
            }
        } else {
            let p = parent as usize;
            for i in 0..4 {
                for j in 0..4 {
                    let mut sum = 0.0;
                    for k in 0..4 {
                        sum += absolutes[p * M4 + i * 4 + k] * relatives[b * M4 + k * 4 + j];
                    }
                    absolutes[b * M4 + i * 4 + j] = sum;
                }
            }
        }
    }
    let mut transforms = vec![0.0; bones * 12];
    for b in 0..bones {
        for i in 0..3 {
            for j in 0..4 {
                let mut sum = 0.0;
                for k in 0..4 {
                    sum += absolutes[b * M4 + i * 4 + k]
                        * model.inverse_base_absolutes[b * M4 + k * 4 + j];
                }
                transforms[b * 12 + i * 4 + j] = sum;
            }
        }
    }
    // Skinning: each vertex is the weighted sum of its rest position moved by each bone.
    let mut positions = vec![0.0; vertices * 3];
    for v in 0..vertices {
        for b in 0..bones {
            let weight = model.weights[v * bones + b];
            if weight != 0.0 {
                for i in 0..3 {
                    let mut moved = 0.0;
                    for k in 0..4 {
                        moved += transforms[b * 12 + i * 4 + k] * model.base_positions[v * 4 + k];
                    }
                    positions[v * 3 + i] += weight * moved;
                }
            }
        }
    }
    // The global rotation and translation (the mirror first, if any).
    let rotation = angle_axis_to_rotation(theta[0], theta[1], theta[2]);
    let mirror = if model.is_mirrored { -1.0 } else { 1.0 };
    let mut posed = vec![0.0; vertices * 3];
    for v in 0..vertices {
        let x = mirror * positions[v * 3];
        let y = positions[v * 3 + 1];
        let z = positions[v * 3 + 2];
        for i in 0..3 {
            posed[v * 3 + i] = rotation[i * 3] * x
                + rotation[i * 3 + 1] * y
                + rotation[i * 3 + 2] * z
                + theta[3 + i];
        }
    }
    let n = correspondences.len();
    let mut err = vec![0.0; 3 * n];
    for p in 0..n {
        let c = correspondences[p];
        if us.is_empty() {
            for j in 0..3 {
                err[p * 3 + j] = points[p * 3 + j] - posed[c * 3 + j];
            }
        } else {
            let (v0, v1, v2) = (
                model.triangles[3 * c],
                model.triangles[3 * c + 1],
                model.triangles[3 * c + 2],
            );
            let (u0, u1) = (us[2 * p], us[2 * p + 1]);
            for j in 0..3 {
                let on_triangle = u0 * posed[v0 * 3 + j]
                    + u1 * posed[v1 * 3 + j]
                    + (1.0 - u0 - u1) * posed[v2 * 3 + j];
                err[p * 3 + j] = points[p * 3 + j] - on_triangle;
            }
        }
    }
    err
}

/// A parsed input: the model, the data and the parameters.
pub struct Input {
    pub theta: Vec<f64>,
    /// Two barycentric coordinates per point, or empty (the "simple" variant).
    pub us: Vec<f64>,
    pub model: Model,
    pub correspondences: Vec<usize>,
    /// 3 coordinates per point.
    pub points: Vec<f64>,
}

/// The numbers of a JSON value nested arrays deep, flattened in order.
fn flatten(value: &Value, name: &str, out: &mut Vec<f64>) -> Result<(), String> {
    match value {
        Value::Array(items) => items.iter().try_for_each(|item| flatten(item, name, out)),
        _ => {
            out.push(
                value
                    .as_f64()
                    .ok_or_else(|| format!("ht: `{name}` holds a non-number"))?,
            );
            Ok(())
        }
    }
}

fn field<'a>(value: &'a Value, name: &str) -> Result<&'a Value, String> {
    value
        .get(name)
        .ok_or_else(|| format!("ht: no field `{name}`"))
}

fn floats(value: &Value, name: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    flatten(field(value, name)?, name, &mut out)?;
    Ok(out)
}

fn integers(value: &Value, name: &str) -> Result<Vec<i64>, String> {
    floats(value, name)?
        .into_iter()
        .map(|v| {
            if v.fract() == 0.0 {
                Ok(v as i64)
            } else {
                Err(format!("ht: `{name}` holds a non-integer"))
            }
        })
        .collect()
}

fn indices(value: &Value, name: &str, below: usize) -> Result<Vec<usize>, String> {
    integers(value, name)?
        .into_iter()
        .map(|v| {
            usize::try_from(v)
                .ok()
                .filter(|&v| v < below)
                .ok_or_else(|| format!("ht: `{name}` holds {v}, not an index below {below}"))
        })
        .collect()
}

impl Input {
    /// Reads GradBench's ht input, checking the shapes the objective relies on.
    pub fn parse(input: &Value) -> Result<Self, String> {
        let data = field(input, "data")?;
        let model = field(data, "model")?;
        let parents = integers(model, "parents")?;
        let bones = parents.len();
        let base_positions = floats(model, "base_positions")?;
        let vertices = base_positions.len() / 4;
        let triangles = indices(model, "triangles", vertices)?;
        let model = Model {
            base_relatives: floats(model, "base_relatives")?,
            inverse_base_absolutes: floats(model, "inverse_base_absolutes")?,
            weights: floats(model, "weights")?,
            is_mirrored: field(model, "is_mirrored")?
                .as_bool()
                .ok_or("ht: `is_mirrored` is not a boolean")?,
            parents,
            base_positions,
            triangles,
        };
        let theta = input::floats(input, "theta")?;
        let us = floats(input, "us")?;
        let points = floats(data, "points")?;
        let n = points.len() / 3;
        let targets = if us.is_empty() {
            vertices
        } else {
            model.triangles.len() / 3
        };
        let correspondences = indices(data, "correspondences", targets)?;
        let parents_ok = model.parents.iter().enumerate().all(|(b, &p)| p < b as i64);
        if bones != 22
            || theta.len() != 26
            || !parents_ok
            || model.base_relatives.len() != bones * M4
            || model.inverse_base_absolutes.len() != bones * M4
            || model.base_positions.len() != vertices * 4
            || model.weights.len() != vertices * bones
            || points.len() != 3 * n
            || correspondences.len() != n
            || !(us.is_empty() || us.len() == 2 * n)
        {
            return Err(
                "ht: the input's shapes do not fit (22 bones, parents first, 26 parameters, 4 x 4 \
                        transforms, 4 coordinates a vertex, 3 a point, 2 us a point)"
                    .to_string(),
            );
        }
        Ok(Input {
            theta,
            us,
            model,
            correspondences,
            points,
        })
    }

    /// The objective at this input.
    pub fn objective(&self) -> Vec<f64> {
        ht_objective(
            &self.theta,
            &self.us,
            &self.model,
            &self.correspondences,
            &self.points,
        )
    }
}

/// The Jacobian of the objective, column-major (`3 n` rows): with `us`, the two columns of the
/// points' own coordinates first, then one per parameter of `theta`; written into `jac`.
pub fn jacobian(input: &Input, jac: &mut Vec<f64>) {
    let Input {
        theta,
        us,
        model,
        correspondences,
        points,
    } = input;
    jac.clear();
    let mut column = |tangent_theta: Vec<f64>, tangent_us: Vec<f64>| {
        let (_, d) = ht_objective_jvp(
            theta,
            us,
            model,
            correspondences,
            points,
            (tangent_theta, tangent_us),
        );
        jac.extend_from_slice(&d);
    };
    if !us.is_empty() {
        for k in 0..2 {
            let seed: Vec<f64> = (0..us.len())
                .map(|i| if i % 2 == k { 1.0 } else { 0.0 })
                .collect();
            column(vec![0.0; theta.len()], seed);
        }
    }
    for k in 0..theta.len() {
        let mut seed = vec![0.0; theta.len()];
        seed[k] = 1.0;
        column(seed, vec![0.0; us.len()]);
    }
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let input = Input::parse(input)?;
    match function {
        "objective" => Ok(job(
            (input, Vec::new()),
            |(input, err)| *err = input.objective(),
            |(_, err)| json!(err),
        )),
        "jacobian" => Ok(job(
            (input, Vec::new()),
            |(input, jac)| jacobian(input, jac),
            |(input, jac)| {
                let rows = 3 * input.correspondences.len();
                let out: Vec<Vec<f64>> = (0..rows)
                    .map(|r| jac.iter().skip(r).step_by(rows.max(1)).copied().collect())
                    .collect();
                json!(out)
            },
        )),
        _ => Err(super::unknown("ht", function)),
    }
}
