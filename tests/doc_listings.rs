//! The listings of generated code in the docs are copies of the expansion snapshots in `tests/expand/`.
//!
//! A fenced code block whose first line is a comment naming a file of `tests/expand/`, such as
//! `// tests/expand/basic.expanded.rs`, says where it was copied from. Every other line of the block must
//! appear in that file, in the same order, after trimming whitespace. Skipped: blank lines, the marker, and
//! `// ..` lines (an elision). A line may carry a note, `code  // note`, which is compared without the note.
//! The snapshots are checked against the macro's output by `cargo test -p autodiff-macros snapshots`, so a
//! listing that passes here shows code the macro writes today. When this test fails after a change of the
//! generated code, copy the current code from the snapshot into the listing and fix the prose around it.

use std::fmt::Write as _;
use std::path::Path;

/// The docs whose listings are checked.
const DOCS: [&str; 2] = [
    "docs/how-it-works.md",
    "docs/coming-from-tensorflow-and-jax.md",
];

/// The prefix of a marker comment: the file of `tests/expand/` the block was copied from.
const MARKER: &str = "// tests/expand/";

/// A fenced code block: the line number of its first body line (1-based) and its body lines.
struct Block {
    info: String,
    first_line: usize,
    lines: Vec<String>,
}

fn blocks(doc: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in doc.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        first_line: index + 2,
                        lines: Vec::new(),
                    });
                }
            }
            Some(mut block) => {
                if trimmed.trim_end() == "```" {
                    blocks.push(block);
                } else {
                    block.lines.push(line.to_string());
                    open = Some(block);
                }
            }
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    blocks
}

/// The file a block says it was copied from, if its first non-blank line is a marker.
fn source_of(block: &Block) -> Option<&str> {
    let first = block
        .lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())?;
    first
        .strip_prefix("// ")
        .filter(|_| first.starts_with(MARKER))
}

/// Whether a snapshot line matches a listing line: equal, or equal to the listing line without its note.
fn matches(snapshot_line: &str, listing_line: &str) -> bool {
    if snapshot_line == listing_line {
        return true;
    }
    match listing_line.find(" //") {
        Some(at) if at > 0 => snapshot_line == listing_line[..at].trim_end(),
        _ => false,
    }
}

/// Checks one marked block; returns a description of the first line that is not where it should be.
fn check_block(root: &Path, doc: &str, block: &Block, source: &str) -> Result<(), String> {
    let path = root.join(source);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{doc}:{}: cannot read {source}: {e}", block.first_line))?;
    let snapshot: Vec<&str> = text.lines().map(str::trim).collect();
    // The last line of each top-level item: `}` at the start of a line.
    let item_ends: Vec<bool> = text.lines().map(|l| l.starts_with('}')).collect();
    let mut next = 0;
    let mut marker_seen = false;
    for (offset, untrimmed) in block.lines.iter().enumerate() {
        let line = untrimmed.trim();
        if line.is_empty() || line == "// .." {
            continue;
        }
        if !marker_seen {
            marker_seen = true;
            continue;
        }
        match snapshot[next..].iter().position(|s| matches(s, line)) {
            // An indented line continues the item of the line before it (the first line of a listing may
            // start anywhere): found only past that item's end, it is another item's line.
            Some(found)
                if next > 0
                    && untrimmed.starts_with(char::is_whitespace)
                    && item_ends[next..next + found].contains(&true) =>
            {
                return Err(format!(
                    "{doc}:{}: `{line}` is not in the item of the line before it in {source}",
                    block.first_line + offset,
                ));
            }
            Some(found) => next += found + 1,
            None => {
                let in_file = snapshot.iter().any(|s| matches(s, line));
                return Err(format!(
                    "{doc}:{}: `{line}` {} {source}",
                    block.first_line + offset,
                    if in_file {
                        "is out of order with respect to"
                    } else {
                        "does not appear in"
                    },
                ));
            }
        }
    }
    Ok(())
}

/// Whether a block without a marker looks like generated code, which should then carry one.
fn looks_generated(block: &Block) -> bool {
    block.info == "rust"
        && block.lines.iter().any(|l| {
            l.contains("::autodiff::__private") || l.contains("__d_") || l.contains("__v0")
        })
}

#[test]
fn listings_of_generated_code_match_the_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = String::new();
    let mut checked = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let mut marked = 0;
        for block in blocks(&text) {
            match source_of(&block) {
                Some(source) => {
                    marked += 1;
                    if let Err(e) = check_block(root, doc, &block, source) {
                        writeln!(failures, "{e}").unwrap();
                    }
                }
                None if looks_generated(&block) => writeln!(
                    failures,
                    "{doc}:{}: a listing of generated code without a `{MARKER}..` line naming its snapshot",
                    block.first_line
                )
                .unwrap(),
                None => {}
            }
        }
        if marked == 0 {
            writeln!(failures, "{doc}: no listing marked with `{MARKER}..`").unwrap();
        }
        checked += marked;
    }
    assert!(
        failures.is_empty(),
        "listings that differ from the snapshots they name (copy the current code from the snapshot, \
         and check the prose around it):\n{failures}"
    );
    assert!(checked >= 10, "only {checked} listings checked");
}

#[test]
fn the_checker_finds_a_stale_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = "```rust\n// tests/expand/basic.expanded.rs\n#[inline]\nfn f_vjp(x: f64, y: f64, d_ret: f64) \
               -> (f64, (f64, f64)) {\n    // ..\n    (__v2, (__d_x_1, __d_y))\n}\n```\n";
    let found = blocks(doc);
    assert_eq!(found.len(), 1);
    let source = source_of(&found[0]).unwrap();
    assert_eq!(source, "tests/expand/basic.expanded.rs");
    let error = check_block(root, "doc", &found[0], source).unwrap_err();
    assert!(error.contains("(__v2, (__d_x_1, __d_y))"), "{error}");

    // Order matters: the sweep is defined after `f_grad_into`.
    let doc = "```rust\n// tests/expand/basic.expanded.rs\nfn __f_vjp_into(x: f64, y: f64, d_ret: f64, \
               grad: (&mut f64, &mut f64)) -> f64 {\nfn f_grad_into(x: f64, y: f64, grad: (&mut f64, \
               &mut f64)) -> f64 {\n```\n";
    let found = blocks(doc);
    let error = check_block(root, "doc", &found[0], source).unwrap_err();
    assert!(error.contains("out of order"), "{error}");

    // A body's line found only in a later item: `f_jvp` calls the generic copy's forward sweep, whose
    // body holds this line.
    let doc = "```rust\n// tests/expand/basic.expanded.rs\nfn f_jvp(x: f64, y: f64, tangent: (f64, f64)) \
               -> (f64, f64) {\n    let __dot_v2 = ::autodiff::__private::rules::times(__dot_z, __v2);\n}\n```\n";
    let found = blocks(doc);
    let error = check_block(root, "doc", &found[0], source).unwrap_err();
    assert!(error.contains("not in the item"), "{error}");
}
