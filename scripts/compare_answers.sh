#!/usr/bin/env bash
# Compares two sextant builds' answers on the test corpora, byte for byte: a refactoring
# that must not change behaviour is held to it by running this with the build before it
# and the build after it.
#
#   scripts/compare_answers.sh BASE_BIN NEW_BIN [OUT_DIR]
#
# Corpora: the repository's tests/fixtures, the Python standard library of python3 (without
# site-packages), Go's net package tree and, when installed by scripts/test, rxjs's
# TypeScript sources. Each is checked with every code selected (`--select ALL`) and with the
# default set, as JSON; `explain` is compared for every code. Exits 1 on any difference and
# leaves both answers in OUT_DIR (default: a temporary directory) to diff.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(realpath "$1")
new=$(realpath "$2")
out=${3:-$(mktemp -d)}
mkdir -p "$out/base" "$out/new"

corpora=("fixtures=$PWD/tests/fixtures")
stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])' 2>/dev/null || true)
[[ -d "$stdlib" ]] && corpora+=("stdlib=$stdlib")
if command -v go >/dev/null; then
    corpora+=("go-net=$(go env GOROOT)/src/net")
fi
rxjs=$PWD/target/npm-tools/node_modules/rxjs/src
[[ -d "$rxjs" ]] && corpora+=("rxjs=$rxjs")

run() {
    local bin=$1 dir=$2 name root
    for corpus in "${corpora[@]}"; do
        name=${corpus%%=*}
        root=${corpus#*=}
        # Exit 1 means "something was reported": an answer, not a failure.
        "$bin" check --root "$root" --exclude 'site-packages/' --format json \
            >"$dir/$name.default.json" 2>"$dir/$name.default.stderr" || true
        "$bin" check --root "$root" --exclude 'site-packages/' --select ALL --format json \
            >"$dir/$name.all.json" 2>"$dir/$name.all.stderr" || true
    done
    "$bin" explain >"$dir/explain-list.txt" 2>&1 || true
    for code in $("$bin" explain 2>/dev/null | grep -oE '^SX[0-9]+' || true); do
        "$bin" explain "$code" >"$dir/explain-$code.txt" 2>&1 || true
    done
}

run "$base" "$out/base" &
run "$new" "$out/new" &
wait

if diff -r "$out/base" "$out/new" >"$out/diff.txt"; then
    echo "identical: $(ls "$out/base" | wc -l) answers ($out)"
else
    echo "DIFFERENT: see $out/diff.txt"
    head -40 "$out/diff.txt"
    exit 1
fi
