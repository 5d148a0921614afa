#!/usr/bin/env bash
# Runs the Linux jobs of examples/ci/storekit-matrix.yml in a copy of examples/app-repo (scripts/run-ci-example.py),
# with PyYAML from PyPI installed in a throwaway virtual environment. Needs python3 with venv and network access to
# PyPI; fails loudly without them.
#
# Usage: scripts/run-ci-example.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv" || { echo "error: 'python3 -m venv' failed; install Python 3 with venv" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pyyaml \
    || { echo "error: cannot install PyYAML from PyPI (network access to pypi.org)" >&2; exit 1; }
exec "$venv/bin/python" scripts/run-ci-example.py "$@"
