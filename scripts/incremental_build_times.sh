#!/usr/bin/env bash
# How long a developer waits after a one-line edit: `cargo check`, `cargo build` and
# `cargo test --no-run` (the unit tests alone, then every test target) after changing one
# string in a front end (the CLI) and one line in the semantic model, each restored
# afterwards. The figures decide whether splitting the crate into a Cargo workspace pays
# (issue 23, item 5); run on an idle machine.
#
#   scripts/incremental_build_times.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}

# A one-line change that alters code, not just a comment (rustc skips comment-only edits).
edits=(
    "src/cli/mod.rs|Code intelligence for|Code intelligence, for"
    "src/semantic/symbols.rs|pub fn as_str(self) -> &'static str {|pub fn as_str(self) -> \&'static str { let _touch = 1;"
)

# The edited files are copied first and put back from the copies, so uncommitted work in
# them survives the script (and a failure part-way).
files=(src/cli/mod.rs src/semantic/symbols.rs)
saved=$(mktemp -d)
copy() { echo "$saved/${1//\//_}"; }
for file in "${files[@]}"; do cp "$file" "$(copy "$file")"; done
restore() { for file in "${files[@]}"; do cp "$(copy "$file")" "$file"; done; }
trap 'restore; rm -rf "$saved"' EXIT

seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

printf '%-26s %-22s %8s\n' "edited" "command" "seconds"
for command in "cargo check" "cargo build" "cargo test --no-run --lib" "cargo test --no-run"; do
    $command >/dev/null 2>&1
    for spec in "${edits[@]}"; do
        IFS='|' read -r file from to <<<"$spec"
        for _ in $(seq "$rounds"); do
            sed -i "s/$(printf '%s' "$from" | sed 's/[&/\]/\\&/g')/$to/" "$file"
            cmp -s "$file" "$(copy "$file")" && { echo "the edit of $file did not apply" >&2; exit 1; }
            printf '%-26s %-22s %8.1f\n' "$file" "$command" "$(seconds $command)"
            restore
            $command >/dev/null 2>&1
        done
    done
done
