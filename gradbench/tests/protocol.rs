//! The protocol, through the binary: `start`, `define`, `evaluate` and other messages on stdin, one
//! JSON answer a line on stdout, nothing on stderr.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the binary on `messages` (one JSON line each) and returns its answers, checking that stderr
/// stays empty and that there is exactly one answer per message.
fn session(messages: &[Value]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_autodiff-gradbench"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool starts");
    {
        let mut stdin = child.stdin.take().expect("stdin is piped");
        for message in messages {
            writeln!(stdin, "{message}").expect("the tool reads its input");
        }
    }
    let out = child.wait_with_output().expect("the tool exits");
    assert!(out.status.success(), "exit status {}", out.status);
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .expect("stdout is UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each answer is one JSON line"))
        .collect();
    assert_eq!(answers.len(), messages.len(), "one answer per message");
    answers
}

fn runs(input: Value, min_runs: usize) -> Value {
    let mut input = input;
    input["min_runs"] = json!(min_runs);
    input["min_seconds"] = json!(0.0);
    input
}

fn evaluate(id: u64, module: &str, function: &str, input: Value) -> Value {
    json!({ "id": id, "kind": "evaluate", "module": module, "function": function, "input": input })
}

fn floats(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect()
}

#[test]
fn start_define_evaluate_and_other_messages() {
    let answers = session(&[
        json!({ "id": 0, "kind": "start", "eval": "lse" }),
        json!({ "id": 1, "kind": "define", "module": "lse" }),
        evaluate(2, "lse", "primal", runs(json!({ "x": [1.0, 2.0, 3.0] }), 3)),
        evaluate(3, "lse", "gradient", runs(json!({ "x": [0.0, 0.0] }), 2)),
        json!({ "id": 4, "kind": "define", "module": "no-such-eval" }),
        json!({ "id": 5, "kind": "analysis", "of": 2, "valid": true }),
        evaluate(6, "lse", "no-such-function", runs(json!({ "x": [1.0] }), 1)),
        evaluate(
            7,
            "lse",
            "primal",
            json!({ "min_runs": 1, "min_seconds": 0 }),
        ),
    ]);
    assert_eq!(answers[0], json!({ "id": 0, "tool": "autodiff" }));
    assert_eq!(answers[1], json!({ "id": 1, "success": true }));

    let primal = &answers[2];
    assert_eq!(primal["id"], 2);
    assert_eq!(primal["success"], true);
    let want = (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
    assert!((primal["output"].as_f64().unwrap() - want).abs() < 1e-12);
    let timings = primal["timings"].as_array().unwrap();
    assert_eq!(timings.len(), 3, "one timing per run, min_runs = 3");
    for timing in timings {
        assert_eq!(timing["name"], "evaluate");
        assert!(timing["nanoseconds"].is_u64());
    }

    assert_eq!(answers[3]["id"], 3);
    assert_eq!(floats(&answers[3]["output"]), vec![0.5, 0.5]);
    assert_eq!(answers[3]["timings"].as_array().unwrap().len(), 2);

    assert_eq!(answers[4], json!({ "id": 4, "success": false }));
    assert_eq!(answers[5], json!({ "id": 5 }));
    for (answer, id) in [(&answers[6], 6), (&answers[7], 7)] {
        assert_eq!(answer["id"], id);
        assert_eq!(answer["success"], false);
        assert!(answer["error"].is_string());
    }
}

#[test]
fn runs_until_min_seconds() {
    let input = json!({ "x": [1.0, 2.0], "min_runs": 1, "min_seconds": 0.02 });
    let answers = session(&[evaluate(0, "lse", "gradient", input)]);
    let total: u64 = answers[0]["timings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["nanoseconds"].as_u64().unwrap())
        .sum();
    assert!(total >= 20_000_000, "ran {total} ns, less than min_seconds");
}

#[test]
fn every_module_answers_in_its_output_shape() {
    let gmm = json!({
        "d": 2, "k": 2, "n": 3, "m": 0, "gamma": 1.0,
        "alpha": [0.1, -0.2],
        "mu": [[0.0, 1.0], [1.0, 0.0]],
        "q": [[0.1, 0.2], [-0.1, 0.0]],
        "l": [[0.3], [-0.2]],
        "x": [[0.5, 0.5], [1.0, -1.0], [0.0, 2.0]],
    });
    let kmeans = json!({
        "points": [[0.0, 0.0], [1.0, 1.0], [5.0, 5.0], [6.0, 7.0]],
        "centroids": [[0.0, 1.0], [5.0, 6.0]],
    });
    let det = json!({ "A": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0], "ell": 3 });
    let lstm = json!({
        "main_params": [[0.1, 0.2, 0.3, 0.4], [0.0, -0.1, 0.2, 0.1]],
        "extra_params": [[1.0], [0.5], [0.1]],
        "state": [[0.2], [0.3]],
        "sequence": [[0.5], [0.7], [0.1]],
    });
    let ba = json!({
        "n": 2, "m": 3, "p": 10,
        "cam": [0.1, -0.2, 0.3, 0.0, 0.1, -0.1, 1.5, 0.2, 0.1, 0.01, 0.001],
        "x": [0.5, -0.5, 4.0],
        "w": 0.8,
        "feat": [0.1, 0.2],
    });
    let cases = [
        ("ba", "objective", ba.clone()),
        ("ba", "jacobian", ba),
        ("det", "primal", det.clone()),
        ("det", "gradient", det),
        ("gmm", "objective", gmm.clone()),
        ("gmm", "jacobian", gmm),
        ("kmeans", "cost", kmeans.clone()),
        ("kmeans", "dir", kmeans),
        ("llsq", "primal", json!({ "x": [0.1, 0.2, 0.3], "n": 5 })),
        ("llsq", "gradient", json!({ "x": [0.1, 0.2, 0.3], "n": 5 })),
        ("lstm", "objective", lstm.clone()),
        ("lstm", "jacobian", lstm),
        ("ode", "primal", json!({ "x": [0.5, 0.3, 0.2], "s": 4 })),
        ("ode", "gradient", json!({ "x": [0.5, 0.3, 0.2], "s": 4 })),
    ];
    let mut messages = Vec::new();
    for (i, (module, function, input)) in cases.iter().enumerate() {
        messages.push(json!({ "id": 2 * i, "kind": "define", "module": module }));
        messages.push(evaluate(
            2 * i as u64 + 1,
            module,
            function,
            runs(input.clone(), 1),
        ));
    }
    let answers = session(&messages);
    for (i, (module, function, _)) in cases.iter().enumerate() {
        assert_eq!(answers[2 * i]["success"], true, "define {module}");
        let answer = &answers[2 * i + 1];
        assert_eq!(answer["success"], true, "{module}.{function}: {answer}");
        let output = &answer["output"];
        match (*module, *function) {
            ("det", "gradient") => assert_eq!(
                floats(output),
                vec![2.0, 2.0, -3.0, 4.0, -11.0, 6.0, -3.0, 6.0, -3.0]
            ),
            ("ba", "objective") => {
                assert_eq!(floats(&output["reproj_error"]["elements"]).len(), 2);
                assert_eq!(output["reproj_error"]["repeated"], 10);
                assert_eq!(output["w_err"]["repeated"], 10);
                assert!((output["w_err"]["element"].as_f64().unwrap() - 0.36).abs() < 1e-15);
            }
            ("ba", "jacobian") => {
                // 3 p + 1 row starts and 2 (11 + 3 + 1) p + p entries, sent as the first 30 and the last.
                for field in ["rows", "cols", "vals"] {
                    assert_eq!(output[field].as_array().unwrap().len(), 31, "ba {field}");
                }
                assert_eq!(output["rows"][1], 15);
                assert_eq!(
                    output["rows"][30],
                    2 * 15 * 10 + 10,
                    "the last row ends at the number of entries"
                );
                assert_eq!(output["cols"][30], 11 * 2 + 3 * 3 + 9);
                assert!((output["vals"][30].as_f64().unwrap() + 1.6).abs() < 1e-15);
            }
            ("det", "primal") => assert_eq!(output.as_f64(), Some(-3.0)),
            ("gmm", "jacobian") => {
                assert_eq!(floats(&output["alpha"]).len(), 2);
                for (field, width) in [("mu", 2), ("q", 2), ("l", 1)] {
                    let rows = output[field].as_array().unwrap();
                    assert_eq!(rows.len(), 2, "gmm {field}");
                    assert!(rows.iter().all(|r| floats(r).len() == width), "gmm {field}");
                }
            }
            ("kmeans", "dir") => assert_eq!(output, &json!([[-0.5, 0.5], [-0.5, 0.0]])),
            ("lstm", "jacobian") => assert_eq!(floats(output).len(), 8 + 3),
            ("llsq", "gradient") | ("ode", "primal") | ("ode", "gradient") => {
                assert_eq!(floats(output).len(), 3)
            }
            _ => assert!(output.is_f64(), "{module}.{function}: {output}"),
        }
    }
}

#[test]
fn defines_every_eval_of_gradbench_but_hello() {
    let evals = [
        "ba", "det", "gmm", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle",
    ];
    let messages: Vec<Value> = evals
        .iter()
        .enumerate()
        .map(|(id, module)| json!({ "id": id, "kind": "define", "module": module }))
        .collect();
    for (id, answer) in session(&messages).iter().enumerate() {
        assert_eq!(
            answer,
            &json!({ "id": id, "success": true }),
            "{}",
            evals[id]
        );
    }
}

#[test]
fn saddle_and_particle_answer_gradbenchs_expected_outputs() {
    let answers = session(&[
        evaluate(0, "saddle", "rf", runs(json!({ "start": [1.0, 1.0] }), 1)),
        evaluate(1, "particle", "fr", runs(json!({ "w": 0.0 }), 1)),
    ]);
    for v in floats(&answers[0]["output"]) {
        assert!((v - 8.246324826140356e-06).abs() < 1e-12, "{}", answers[0]);
    }
    let w = answers[1]["output"].as_f64().unwrap();
    assert!((w - 0.2071918746486116).abs() < 1e-9, "{}", answers[1]);
}
