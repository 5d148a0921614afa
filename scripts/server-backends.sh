#!/usr/bin/env bash
# Runs the release matrix against the Python reference backend (examples/backends/python, on Apple's
# app-store-server-library from PyPI in a throwaway virtual environment), each run started by --server, and checks
# each run's evidence:
#   reference, --signing-faults     every step passes, every notification a correct server refuses is refused
#   ignores-refund                  fails exactly the refund and revocation steps
#   counts-duplicates, duplicated   fails refund or revocation steps under --delivery duplicated
#   probes-api                      every step passes: each loopback App Store Server API answer decodes with
#                                   the library's models and its tokens are accepted
#
# Usage: scripts/server-backends.sh MATRIX_BINARY OUT_DIR
# Environment: APP_STORE_SERVER_LIBRARY_VERSION pins the PyPI version; PYTHON names the interpreter.
# Exit status: 0 every run as expected, 1 a run was not, 64 usage, 69 python/pip unavailable.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
fi
matrix="$1"
out="$2"
root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "error: $python not found" >&2; exit 69; }
venv="$(mktemp -d)"
trap 'rm -rf "$venv"' EXIT
package="app-store-server-library${APP_STORE_SERVER_LIBRARY_VERSION:+==$APP_STORE_SERVER_LIBRARY_VERSION}"
"$python" -m venv "$venv" || { echo "error: could not create a virtual environment (install python3-venv)" >&2; exit 69; }
"$venv/bin/pip" install --quiet --disable-pip-version-check "$package" \
    || { echo "error: could not install $package from PyPI" >&2; exit 69; }
echo "Using $("$venv/bin/pip" show app-store-server-library 2>/dev/null | awk '/^Version:/ {print "app-store-server-library " $2}')" >&2

status=0
run() {
    local variant="$1" delivery="$2" expectation="$3" expected_exit="$4"
    local extra=("${@:5}")
    local dir="$out/$variant-$delivery${extra[0]:+-faults}"
    local code=0
    "$matrix" run "$root_dir/matrices/release.json" --env server --delivery "$delivery" --out "$dir" --quiet "${extra[@]}" \
        --server "$venv/bin/python $root_dir/examples/backends/python/backend.py --variant $variant" \
        --notify-url 'http://127.0.0.1:{port}/notifications' \
        --access-url 'http://127.0.0.1:{port}/access/original/{originalTransactionId}' || code=$?
    if [[ $code -ne $expected_exit ]]; then
        echo "error: the $variant backend under --delivery $delivery exited $code, expected $expected_exit" >&2
        status=1
        return
    fi
    local run_dir
    run_dir=$(find "$dir" -mindepth 3 -maxdepth 3 -type d | head -n 1)
    python3 "$root_dir/scripts/check-server-run.py" "$run_dir" "$expectation" || status=1
}

run reference production all-pass 0 --signing-faults
run ignores-refund production revocations-fail 1
run counts-duplicates duplicated some-revocations-fail 1
run probes-api production all-pass 0
exit $status
