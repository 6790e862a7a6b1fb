#!/bin/sh
# The macro's compile time in instructions, which do not move with the machine's load as times do:
# callgrind counts the instructions of rustc's macro expansion (`MacroExpander::expand_crate`) of the
# user forms of the speed benches (`benches/user_forms/autodiff.rs`), the crate that
# `cargo bench --bench expansion` compiles, with the macro crate in the dev profile as a user's
# `cargo build` has it.
#
#   benches/expansion-callgrind.sh              the count, in millions of instructions
#   benches/expansion-callgrind.sh --annotate   also the functions that spent them (callgrind_annotate)
#
# It writes the crate under `$CARGO_TARGET_DIR/expansion-bench/` (or `target/expansion-bench/`), lets
# cargo build its dependencies, takes rustc's command line for the crate from `cargo rustc --lib -v`,
# and runs that command under valgrind with `--emit=metadata` into a directory of its own (cargo's
# outputs stay as they are). Needs valgrind.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
dir=$target/expansion-bench
out=$dir/callgrind
mkdir -p "$dir/src" "$out"

# The crate of benches/expansion.rs: the same manifest and source.
cat >"$dir/Cargo.toml" <<EOF
[package]
name = "expansion-fixture"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
autodiff = { path = "$root" }

[workspace]
EOF
{
    echo '#![allow(unused, clippy::all)]'
    cat "$root/benches/user_forms/autodiff.rs"
} >"$dir/src/lib.rs"

# rustc's command line for the fixture, as cargo runs it (the dependencies built first, as the bench
# has them: the fixture has a target directory of its own and no RUSTFLAGS).
command=$(cd "$dir" && env -u CARGO_TARGET_DIR -u RUSTFLAGS cargo rustc --lib -v 2>&1 |
    sed -n 's/^ *Running `\(.*--crate-name expansion_fixture .*\)`$/\1/p')
if [ -z "$command" ]; then
    echo "cargo did not compile the fixture (nothing to measure)" >&2
    exit 1
fi
# Only the crate's metadata, into a directory of our own, without incremental state.
command=$(printf '%s\n' "$command" |
    sed -e 's/--emit=[^ ]*/--emit=metadata/' \
        -e "s|--out-dir [^ ]*|--out-dir $out|" \
        -e 's/-C incremental=[^ ]*//')

rm -f "$out"/callgrind.out.*
(cd "$dir" && eval "valgrind --tool=callgrind --toggle-collect='*MacroExpander*expand_crate*' \
    --callgrind-out-file=$out/callgrind.out.%p -q $command") >"$out/rustc.log" 2>&1 || {
    cat "$out/rustc.log" >&2
    exit 1
}
file=$(ls "$out"/callgrind.out.* | head -n 1)
total=$(callgrind_annotate "$file" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) *(100.0%) *PROGRAM TOTALS.*/\1/p' | tr -d ,)
echo "macro expansion: $total instructions ($(echo "$total" | awk '{ printf "%.1f", $1 / 1e6 }')M), $file"
if [ "${1:-}" = "--annotate" ]; then
    callgrind_annotate --inclusive=yes "$file" 2>/dev/null | head -n 80
fi
