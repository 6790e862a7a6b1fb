#!/bin/sh
# The macro's compile time in milliseconds, beside another copy of autodiff timed in turn: rustc's own
# `macro_expand_crate` (`-Z time-passes`, accepted by stable rustc under RUSTC_BOOTSTRAP=1) of the user
# forms of the speed benches (`benches/user_forms/autodiff.rs`), the crate that `cargo bench --bench
# expansion` compiles, with the macro crate in the dev profile as a user's `cargo build` has it.
#
#   benches/expansion-time.sh [RUNS] [OTHER]
#
# OTHER is the root of another copy of autodiff (for instance the commit before a change, unpacked with
# `git archive <commit> | tar -x -C /tmp/before`). The two crates are compiled alternately, RUNS times
# each (default 20), so that the load of the machine falls on both alike; the minimum is the figure.
set -eu

runs=${1:-20}
other=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

# A crate of the user forms depending on the autodiff at $2, in the directory $1.
fixture() {
    mkdir -p "$1/src"
    cat >"$1/Cargo.toml" <<EOF
[package]
name = "expansion-fixture"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
autodiff = { path = "$2" }

[workspace]
EOF
    {
        echo '#![allow(unused, clippy::all)]'
        cat "$root/benches/user_forms/autodiff.rs"
    } >"$1/src/lib.rs"
    cp "$root/rust-toolchain.toml" "$1/"
    (cd "$1" && env -u CARGO_TARGET_DIR -u RUSTFLAGS cargo rustc --lib --quiet)
}

# One compilation of the crate in $1: its macro_expand_crate in milliseconds.
expansion() {
    touch "$1/src/lib.rs"
    (cd "$1" && env -u CARGO_TARGET_DIR -u RUSTFLAGS RUSTC_BOOTSTRAP=1 \
        cargo rustc --lib --quiet -- -Z time-passes 2>&1) |
        sed -n 's/^time: *\([0-9.]*\);.*macro_expand_crate$/\1/p' |
        awk '{ printf "%.1f\n", $1 * 1000 }'
}

# The minimum and median of the numbers in the file $1.
summary() {
    sort -n "$1" | awk '{ v[NR] = $1 } END { printf "min %5.1f ms  median %5.1f ms  (%d runs)\n", v[1], v[int((NR + 1) / 2)], NR }'
}

dir=$target/expansion-time
fixture "$dir/this" "$root"
[ -n "$other" ] && fixture "$dir/other" "$other"
: >"$dir/this.ms"
: >"$dir/other.ms"
i=0
while [ "$i" -lt "$runs" ]; do
    expansion "$dir/this" >>"$dir/this.ms"
    [ -n "$other" ] && expansion "$dir/other" >>"$dir/other.ms"
    i=$((i + 1))
done
echo "this tree ($root): $(summary "$dir/this.ms")"
[ -n "$other" ] && echo "other ($other): $(summary "$dir/other.ms")"
true
