#!/usr/bin/env bash
# The frameworks suite: the tilec package (python/tilec) over the built
# libtilec, on NumPy arrays. NumPy comes from a virtual environment kept
# outside the clone and reused ($XDG_CACHE_HOME/tilec, else ~/.cache/tilec),
# created when missing; where PyPI cannot serve it the suite is skipped
# (exit 77) with the reason. TILEC_FRAMEWORKS_PYTHON names a Python that
# has NumPy instead.
#   run-frameworks.sh LIBTILEC SOURCE_ROOT
set -euo pipefail
lib=$1 root=$2
py=${TILEC_FRAMEWORKS_PYTHON:-}
if [ -z "$py" ]; then
  venv=${XDG_CACHE_HOME:-$HOME/.cache}/tilec/venv-numpy
  if ! "$venv/bin/python" -c "import numpy" 2>/dev/null; then
    log=$(mktemp)
    if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q numpy; } >"$log" 2>&1; then
      echo "skipped: NumPy could not be installed into $venv:"
      tail -n 5 "$log"
      rm -f "$log"
      exit 77
    fi
    rm -f "$log"
  fi
  py=$venv/bin/python
fi
export TILEC_LIBRARY=$lib PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
export TILEC_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$TILEC_CACHE_DIR"' EXIT
"$py" "$root/tests/frameworks/test_numpy.py" "$root/examples"
