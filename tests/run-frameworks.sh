#!/usr/bin/env bash
# The frameworks suite: the tilec package (python/tilec) over the built
# libtilec, from NumPy (test_numpy.py), PyTorch (test_torch.py) or JAX
# (test_jax.py, through libtilec's XLA FFI handler). The
# frameworks come from virtual environments kept outside the clone and
# reused ($XDG_CACHE_HOME/tilec, else ~/.cache/tilec), created when missing:
# NumPy's small, PyTorch's (its CUDA build, the one PyPI serves: about 5 GB
# the first time) with JAX beside it. Where PyPI cannot serve them the test
# is skipped (exit 77) with the reason. TILEC_FRAMEWORKS_PYTHON names a
# Python that has them instead.
#   run-frameworks.sh numpy|torch|jax LIBTILEC SOURCE_ROOT
set -euo pipefail
which=$1 lib=$2 root=$3
case $which in
  numpy) venv_name=venv-numpy pkgs=(numpy) probe="import numpy" ;;
  torch|jax) venv_name=venv-torch-jax pkgs=(numpy "torch==2.15.0" "jax[cpu]==0.10.2")
         probe="import numpy, jax, torch; assert torch.__version__.startswith('2.15.0')" ;;
  *) echo "run-frameworks.sh: no test '$which'"; exit 2 ;;
esac
py=${TILEC_FRAMEWORKS_PYTHON:-}
if [ -z "$py" ]; then
  venv=${XDG_CACHE_HOME:-$HOME/.cache}/tilec/$venv_name
  if ! "$venv/bin/python" -c "$probe" 2>/dev/null; then
    echo "installing ${pkgs[*]} into $venv (once)"
    log=$(mktemp)
    if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q "${pkgs[@]}"; } >"$log" 2>&1; then
      echo "skipped: ${pkgs[*]} could not be installed into $venv:"
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
# TILEC_FAKE_CUDA_DIR: the tests' fake CUDA driver (libcuda.so.1), first on
# the library path, its launches succeeding and each written to a trace
if [ -n "${TILEC_FAKE_CUDA_DIR:-}" ]; then
  export LD_LIBRARY_PATH=$TILEC_FAKE_CUDA_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export FAKE_CUDA_TRACE=$TILEC_CACHE_DIR/fake-cuda-trace
fi
"$py" "$root/tests/frameworks/test_$which.py" "$root/examples"
