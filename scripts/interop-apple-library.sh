#!/usr/bin/env bash
# Verifies StoreKit Matrix JWS vectors with Apple's App Store Server Library for Python (from PyPI) in a
# throwaway virtual environment, to show that Apple's own verifier accepts and rejects them as recorded.
#
# Usage: scripts/interop-apple-library.sh VECTORS.json
#   VECTORS.json comes from a run (scripts/interop-vectors-from-run.py, as .ci/run does) or from the tests:
#     SIGNED_DATA_INTEROP_VECTORS=/tmp/vectors.json swift test --filter InteropVectorTests
# Environment:
#   APP_STORE_SERVER_LIBRARY_VERSION  pin the PyPI version (default: latest)
#   PYTHON                            interpreter to create the venv with (default: python3)
# Exit status: 0 all vectors match, 1 a mismatch, 64 usage error, 69 python/pip unavailable.
set -euo pipefail

if [[ $# -ne 1 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    [[ $# -eq 1 && ( "$1" == "-h" || "$1" == "--help" ) ]] && exit 0
    exit 64
fi
vectors="$1"
if [[ ! -r "$vectors" ]]; then
    echo "error: cannot read '$vectors'; generate it with SIGNED_DATA_INTEROP_VECTORS=$vectors swift test --filter InteropVectorTests" >&2
    exit 64
fi

python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "error: $python not found" >&2; exit 69; }
script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$(mktemp -d)"
trap 'rm -rf "$venv"' EXIT

package="app-store-server-library${APP_STORE_SERVER_LIBRARY_VERSION:+==$APP_STORE_SERVER_LIBRARY_VERSION}"
"$python" -m venv "$venv" || { echo "error: could not create a virtual environment (install python3-venv)" >&2; exit 69; }
"$venv/bin/pip" install --quiet --disable-pip-version-check "$package" \
    || { echo "error: could not install $package from PyPI" >&2; exit 69; }
echo "Using $("$venv/bin/pip" show app-store-server-library 2>/dev/null | awk '/^Version:/ {print "app-store-server-library " $2}')" >&2

"$venv/bin/python" "$script_dir/interop-apple-library.py" "$vectors"
