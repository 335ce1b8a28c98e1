#!/usr/bin/env bash
# The realworld suite: tilec on third-party Triton kernels, read unmodified.
#
#   run.sh ptx TILEC PTXAS WORKDIR        liger-kernel's launched kernels to PTX, checked by ptxas
#   run.sh emu TILEC PTXAS WORKDIR        a few of them on the CPU emulator against NumPy
#   run.sh sglang TILEC PTXAS WORKDIR     sglang's launched kernels of kernels/ops/attention, moe and
#                                         quantization (sglang.sigs) to PTX, checked by ptxas
#   run.sh sglang-emu TILEC PTXAS WORKDIR  sglang's MoE routers on the CPU emulator against NumPy
#   run.sh tutorials TILEC PTXAS WORKDIR [DIR]
#                                         the kernels of tutorials.sigs, from Triton's
#                                         python/tutorials/ copied into DIR (not kept in the tree;
#                                         DIR defaults to $TILEC_TUTORIALS, and without either the
#                                         mode skips, saying so)
#   run.sh tutorials-emu TILEC PTXAS WORKDIR [DIR]
#                                         some of them (01, 02, 03, 05, 06's attention forward and backward,
#                                         09's matmul_kernel)
#                                         on the CPU emulator against NumPy
#
# ptx, emu and sglang download a pinned wheel (liger-kernel 0.8.5, sglang 0.5.23, each hash
# checked) into WORKDIR with pip, unpack it there and never copy it into the tree; emu
# installs NumPy into a virtual environment in WORKDIR. Without PyPI they skip (exit 77).
#
# The compiling modes compile each line of a .sigs file (FILE | KERNEL | SIGNATURE | FLAGS)
# with `tilec compile --emit=ptx` and run ptxas on the result; they print each kernel's
# status, the first line of each failure's diagnostic, and the count. A mode fails when
# fewer kernels than its threshold get through (LIGER_MIN_PTX, SGLANG_MIN_PTX; every one of
# the tutorials), and, whatever the threshold, when tilec crashes (a signal) or reports an
# internal error on any kernel. Raise the thresholds as the frontend and code generator
# learn more.
#
# emu runs the kernels of the table below with `tilec run` on NumPy-made inputs of
# ragged sizes and compares their outputs with references in emu_ref.py. A kernel that
# does not compile yet is reported as such and does not fail the suite (the ptx count
# holds that); one that compiles and then fails to run or disagrees with NumPy does.
set -u

LIGER_MIN_PTX=84
SGLANG_MIN_PTX=139

LIGER_VERSION=0.8.5
LIGER_WHEEL=liger_kernel-$LIGER_VERSION-py3-none-any.whl
LIGER_SHA256=60789cd576af073ab9b192b570d2597fd0cdad489cd62fb44fb16256d43754c9
# sglang's wheel is for CPython 3.11 on glibc 2.34+; the kernels are Python text, so any
# machine can read them: pip is told the wheel's platform rather than its own
SGLANG_VERSION=0.5.23
SGLANG_WHEEL=sglang-$SGLANG_VERSION-cp311-cp311-manylinux_2_34_x86_64.whl
SGLANG_SHA256=00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937
COMPILE_TIMEOUT=90   # seconds for one tilec compile; past it the kernel counts as failed

mode=${1:-}
[ $# -ge 4 ] || { echo "usage: run.sh ptx|emu|sglang|tutorials TILEC PTXAS WORKDIR [DIR]"; exit 2; }
tilec=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ptxas=$3
mkdir -p "$4" || exit 1
work=$(cd "$4" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$tilec" ] || { echo "no tilec at $tilec"; exit 1; }

# Downloads a pinned wheel and unpacks it into $work/NAME (once; pip checks the hash).
# fetch_wheel NAME REQUIREMENT WHEEL SHA256 [PIP OPTIONS...]
fetch_wheel() {
  local name=$1 req=$2 wheel=$3 sha=$4
  shift 4
  [ -f "$work/$name/.unpacked" ] && return 0
  rm -rf "${work:?}/$name" "$work/dl-$name"
  mkdir -p "$work/dl-$name"
  echo "$req --hash=sha256:$sha" >"$work/dl-$name/req.txt"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "SKIP: python3 -m pip is not available to download $req"
    exit 77
  fi
  if ! python3 -m pip download --no-deps --require-hashes -r "$work/dl-$name/req.txt" -d "$work/dl-$name" "$@" \
      --timeout 20 --retries 1 --disable-pip-version-check -q >"$work/dl-$name/pip.log" 2>&1; then
    if grep -q "HASHES" "$work/dl-$name/pip.log"; then
      cat "$work/dl-$name/pip.log"
      echo "FAILED: the downloaded $wheel does not have the pinned sha256"
      exit 1
    fi
    tail -3 "$work/dl-$name/pip.log"
    echo "SKIP: cannot download $req from PyPI"
    exit 77
  fi
  python3 -m zipfile -e "$work/dl-$name/$wheel" "$work/$name" || { echo "FAILED: cannot unpack $wheel"; exit 1; }
  rm -rf "${work:?}/dl-$name"
  touch "$work/$name/.unpacked"
}

fetch_liger() {
  ops=$work/liger/liger_kernel/ops
  fetch_wheel liger "liger-kernel==$LIGER_VERSION" "$LIGER_WHEEL" "$LIGER_SHA256"
  [ -d "$ops" ] || { echo "FAILED: $LIGER_WHEEL has no liger_kernel/ops"; exit 1; }
}

fetch_sglang() {
  ops=$work/sglang/sglang/kernels/ops
  fetch_wheel sglang "sglang==$SGLANG_VERSION" "$SGLANG_WHEEL" "$SGLANG_SHA256" \
    --only-binary=:all: --platform manylinux_2_34_x86_64 --python-version 3.11 --implementation cp --abi cp311
  [ -d "$ops" ] || { echo "FAILED: $SGLANG_WHEEL has no sglang/kernels/ops"; exit 1; }
}

# The first line of a diagnostic: the first error, else the first line.
first_diag() {
  local l
  l=$(grep -m1 -E '(^|: )(error|fatal)' "$1")
  [ -n "$l" ] || l=$(grep -m1 . "$1")
  printf '%s' "${l:-(no diagnostic)}"
}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

# Compiles every line of a .sigs file with the kernels' files in $2; prints the count.
# Sets $compiled, $total and $crashed (kernels on which tilec died of a signal or reported
# an internal error).
compile_all() {
  local sigs=$1 src=$2 out=$work/out
  local file kernel sig flags arch status t0 t1
  rm -rf "$out"
  mkdir -p "$out"
  compiled=0
  total=0
  crashed=0
  while IFS='|' read -r file kernel sig flags; do
    file=$(trim "$file")
    case $file in ''|'#'*) continue ;; esac
    kernel=$(trim "$kernel")
    sig=$(trim "$sig")
    flags=$(trim "${flags:-}")
    total=$((total + 1))
    arch=sm_80
    [[ $flags =~ --arch[=\ ]([a-z0-9_]+) ]] && arch=${BASH_REMATCH[1]}
    local base=$out/$total-$kernel
    t0=$(date +%s)
    # shellcheck disable=SC2086 # flags are words
    (cd "$src" && timeout "$COMPILE_TIMEOUT" "$tilec" compile "$file" -k "$kernel" -s "$sig" $flags \
       --emit=ptx -o "$base.ptx") >"$base.log" 2>&1
    local rc=$?
    t1=$(date +%s)
    if [ $rc -eq 124 ]; then
      status="FAIL  $file:$kernel: compile took over ${COMPILE_TIMEOUT} s"
    elif [ $rc -ge 128 ]; then
      status="CRASH $file:$kernel: tilec died of signal $((rc - 128)): $(first_diag "$base.log")"
      crashed=$((crashed + 1))
    elif grep -q "internal error" "$base.log"; then
      status="CRASH $file:$kernel: $(grep -m1 "internal error" "$base.log")"
      crashed=$((crashed + 1))
    elif [ $rc -ne 0 ]; then
      status="FAIL  $file:$kernel: $(first_diag "$base.log")"
    elif [ ! -x "$ptxas" ]; then
      status="FAIL  $file:$kernel: no ptxas at $ptxas"
    elif ! "$ptxas" -arch="$arch" "$base.ptx" -o "$base.cubin" >"$base.ptxas" 2>&1; then
      status="FAIL  $file:$kernel: ptxas -arch=$arch: $(first_diag "$base.ptxas")"
    else
      status="ok    $file:$kernel ($((t1 - t0)) s)"
      compiled=$((compiled + 1))
    fi
    echo "$status"
  done <"$sigs"
}

# The count of a compiling mode against its threshold (NAME VALUE), after
# no_crashes; exits.
check_count() {
  local what=$1 name=$2 min=$3
  echo "$what: $compiled / $total kernels compiled to PTX that ptxas accepts (threshold $min)"
  no_crashes
  if [ "$compiled" -lt "$min" ]; then
    echo "FAILED: fewer than $min kernels compile"
    exit 1
  fi
  [ "$compiled" -gt "$min" ] && echo "note: raise $name in tests/realworld/run.sh to $compiled"
  exit 0
}

# The folder of the tutorials' texts ($1, else $TILEC_TUTORIALS) as an absolute path in
# $tutorials; without either, skips saying what it would have done ($2).
tutorials_dir() {
  local dir=${1:-${TILEC_TUTORIALS:-}}
  if [ -z "$dir" ]; then
    echo "SKIP: Triton's tutorials are not in the tree; set TILEC_TUTORIALS=DIR to a copy of python/tutorials"
    echo "(the versions tutorials.sigs names) to $2"
    exit 77
  fi
  [ -d "$dir" ] || { echo "FAILED: TILEC_TUTORIALS=$dir is not a folder"; exit 1; }
  tutorials=$(cd "$dir" && pwd)
}

# Fails on any crash or internal error, whatever the count.
no_crashes() {
  if [ "$crashed" -gt 0 ]; then
    echo "FAILED: tilec crashed or reported an internal error on $crashed kernel(s) (CRASH above)"
    exit 1
  fi
}

case $mode in
ptx)
  fetch_liger
  [ -x "$ptxas" ] || { echo "SKIP: no ptxas at $ptxas"; exit 77; }
  compile_all "$here/liger.sigs" "$ops"
  check_count "liger-kernel $LIGER_VERSION" LIGER_MIN_PTX "$LIGER_MIN_PTX"
  ;;
sglang)
  fetch_sglang
  [ -x "$ptxas" ] || { echo "SKIP: no ptxas at $ptxas"; exit 77; }
  compile_all "$here/sglang.sigs" "$ops"
  check_count "sglang $SGLANG_VERSION" SGLANG_MIN_PTX "$SGLANG_MIN_PTX"
  ;;
tutorials)
  tutorials_dir "${5:-}" "compile them"
  [ -x "$ptxas" ] || { echo "SKIP: no ptxas at $ptxas"; exit 77; }
  compile_all "$here/tutorials.sigs" "$tutorials"
  echo "Triton tutorials: $compiled / $total kernels compiled to PTX that ptxas accepts (all must)"
  no_crashes
  [ "$compiled" -eq "$total" ] || { echo "FAILED: $((total - compiled)) tutorial kernel(s) do not compile"; exit 1; }
  exit 0
  ;;
emu) ;;
sglang-emu) ;;
tutorials-emu) ;;
*) echo "usage: run.sh ptx|emu|sglang|sglang-emu|tutorials|tutorials-emu TILEC PTXAS WORKDIR [DIR]"; exit 2 ;;
esac

# ---- emu, sglang-emu --------------------------------------------------------------
# NumPy in a virtual environment in WORKDIR (made once): sets $py.
numpy_venv() {
  local venv=$work/venv
  if ! "$venv/bin/python" -c 'import numpy' >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >"$work/venv.log" 2>&1; then
      tail -3 "$work/venv.log"
      echo "SKIP: python3 -m venv cannot make a virtual environment for NumPy"
      exit 77
    fi
    if ! "$venv/bin/python" -m pip install --timeout 20 --retries 1 --disable-pip-version-check -q numpy \
        >>"$work/venv.log" 2>&1; then
      tail -3 "$work/venv.log"
      echo "SKIP: cannot install NumPy from PyPI"
      exit 77
    fi
  fi
  py=$venv/bin/python
}

# Runs the checks of the array named $2 (NAME | FILE | KERNEL | SIGNATURE | GRID | FLAGS |
# ARGUMENTS) on each "ROWS COLS" case of the array named $3, the kernels' files in $ops,
# references in the script $1 (make / check, as emu_ref.py); {name} is an input the script
# made as name.npy, {out:name} an output buffer it also made (saved back to out_name.npy
# after the run), {R} {C} the case's rows and columns, {B} the power of 2 at or above C.
# Prints a line per check; sets $pass, $notyet and $failed.
emu_checks() {
  local ref=$1
  local -n checks_=$2 cases_=$3
  local c rc_ R C B d s g a w i result name file kernel sig grid flags args
  pass=0
  notyet=0
  failed=0
  for c in "${checks_[@]}"; do
    IFS='|' read -r name file kernel sig grid flags args <<<"$c"
    result=""
    for rc_ in "${cases_[@]}"; do
      read -r R C <<<"$rc_"
      B=1
      while [ "$B" -lt "$C" ]; do B=$((B * 2)); done
      d=$work/emu/$name-${R}x$C
      rm -rf "$d"
      mkdir -p "$d"
      if ! "$py" "$ref" make "$name" "$R" "$C" "$d" >"$d/make.log" 2>&1; then
        result="FAIL  $name: $(basename "$ref") make: $(first_diag "$d/make.log")"
        break
      fi
      s=${sig//\{C\}/$C}; s=${s//\{B\}/$B}
      g=${grid//\{C\}/$C}; g=${g//\{R\}/$R}
      a=${args//\{C\}/$C}; a=${a//\{R\}/$R}
      local argv=() saves=()
      i=0
      for w in $a; do
        if [[ $w =~ ^\{out:([a-z_]+)\}$ ]]; then
          argv+=("$d/${BASH_REMATCH[1]}.npy")
          saves+=(--save "$i=$d/out_${BASH_REMATCH[1]}.npy")
        elif [[ $w =~ ^\{([a-z_]+)\}$ ]]; then
          argv+=("$d/${BASH_REMATCH[1]}.npy")
        else
          argv+=("$w")
        fi
        i=$((i + 1))
      done
      # compile alone first: a kernel tilec cannot compile yet is not an emulator failure
      # shellcheck disable=SC2086 # flags are words
      if ! (cd "$ops" && timeout "$COMPILE_TIMEOUT" "$tilec" compile "$file" -k "$kernel" -s "$s" $flags \
            --emit=tile-gpu -o "$d/k.mlir") >"$d/compile.log" 2>&1; then
        result="not compiled yet  $name ($file:$kernel): $(first_diag "$d/compile.log")"
        break
      fi
      # shellcheck disable=SC2086 # flags are words
      if ! (cd "$ops" && timeout 120 "$tilec" run "$file" -k "$kernel" -s "$s" -g "$g" $flags --device=cpu \
            "${argv[@]}" "${saves[@]}") >"$d/run.log" 2>&1; then
        result="FAIL  $name ($file:$kernel), $R x $C: tilec run: $(first_diag "$d/run.log")"
        break
      fi
      if ! "$py" "$ref" check "$name" "$R" "$C" "$d" >"$d/check.log" 2>&1; then
        result="FAIL  $name ($file:$kernel), $R x $C: $(first_diag "$d/check.log")"
        break
      fi
    done
    [ -n "$result" ] || result="ok    $name ($file:$kernel) on ${cases_[*]}"
    echo "$result"
    case $result in
      ok*) pass=$((pass + 1)) ;;
      "not compiled yet"*) notyet=$((notyet + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  done
}

if [ "$mode" = tutorials-emu ]; then
  tutorials_dir "${5:-}" "run them on the emulator"
  ops=$tutorials
  numpy_venv
  # elementwise and row kernels on ragged sizes; 03's matmul on a ragged M, N and K;
  # 06's attention forward (pointer arguments), causal and not
  ATT_BWD_SIG="*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:1, i32, i32:16, 32, 128, 128, 32, 2, 64"
  rows=(
    "vector_add|01-vector-add.py|add_kernel|*fp32:16, *fp32:16, *fp32:16, i32, 1024|cdiv({R}*{C}, 1024)|-w 4|{x} {y} {out:z} {R}*{C}"
    "softmax|02-fused-softmax.py|softmax_kernel|*fp32:16, *fp32:16, i32, i32, i32, i32, {B}, 4|min({R}, 4)|-w 4|{out:y} {x} {C} {C} {R} {C}"
    "layer_norm|05-layer-norm.py|_layer_norm_fwd_fused|*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, {B}|{R}|-w 4|{x} {out:y} {w} {b} {out:mean} {out:rstd} {C} {C} 1e-5"
  )
  row_cases=("3 1000" "7 77")
  mm=(
    "matmul|03-matrix-multiplication.py|matmul_kernel|*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 64, 64, 32, 8, ''|cdiv({R}, 64) * cdiv({C}, 64)|-w 4 --num-stages 3|{a} {b} {out:c} {R} {C} 80 80 1 {C} 1 {C} 1"
  )
  mm_cases=("100 72")
  # the autotune config of 03 at 128x128x32 with Triton's specialization of a problem whose
  # sizes are multiples of 16 but not of the block: the row and column offsets wrap (% M, % N)
  # inside the last blocks, which the copies' vector width must respect
  mm16=(
    "matmul_hinted|03-matrix-multiplication.py|matmul_kernel|*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8, ''|cdiv({R}, 128) * cdiv({C}, 128)|-w 4 --num-stages 4|{a} {b} {out:c} {R} {C} 80 80 1 {C} 1 {C} 1"
  )
  mm16_cases=("144 208")
  # 09's matmul_kernel at its 128x128x64 config (8 warps, 3 stages), b transposed as its host
  # code passes it: B's tile holds K along its fastest dimension
  mm16+=(
    "matmul_bt|09-persistent-matmul.py|matmul_kernel|*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:1, 128, 128, 64, 8|cdiv({R}, 128) * cdiv({C}, 128)|-w 8 --num-stages 3|{a} {bt} {out:c} {R} {C} 80 80 1 1 80 {C} 1"
  )
  # 09's matmul_kernel_tma on sm_90a, its A, B (transposed) and C host TensorDescriptors over
  # ragged M and N: C's store is a TMA copy, the rows and columns past M and N dropped; and its
  # persistent form on 3 programs for the 4 tiles (NUM_SMS 3): a program's second tile runs the
  # K loop again on the same slots and mbarriers, and the epilogue's two subtiles are stored
  mm16+=(
    "matmul_tma_persistent|09-persistent-matmul.py|matmul_kernel_tma_persistent|tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, i32:16, i32:16, i32:16, 128, 128, 64, 8, False, True, 3, False|3|-w 4 --num-stages 2 --arch=sm_90a|{a} {R} 80 80 1 {bt} {C} 80 80 1 {out:c} {R} {C} {C} 1 {R} {C} 80"
    "matmul_tma|09-persistent-matmul.py|matmul_kernel_tma|tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, i32:16, i32:16, i32:16, 128, 128, 64, 8, False, False|cdiv({R}, 128) * cdiv({C}, 128)|-w 4 --num-stages 2 --arch=sm_90a|{a} {R} 80 80 1 {bt} {C} 80 80 1 {out:c} {R} {C} {C} 1 {R} {C} 80"
  )
  att=(
    "attention_causal|06-fused-attention.py|_attn_fwd|fp32, *fp32:16, i32, i32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, 64, 64, 32, False, 3, False, False|cdiv({C}, 64), 2|-w 4 --num-stages 3|0.5 {out:m} 1 2 {q} {k} {v} {out:o} {C}"
    "attention|06-fused-attention.py|_attn_fwd|fp32, *fp32:16, i32, i32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, 64, 64, 32, False, 1, False, False|cdiv({C}, 64), 2|-w 4 --num-stages 3|0.5 {out:m} 1 2 {q} {k} {v} {out:o} {C}"
  )
  # on sm_90a with host TensorDescriptors, as the tutorial's Hopper path passes them: Q's load
  # and O's store are TMA copies from the tensor maps tilec run builds
  att+=(
    "attention_tma_causal|06-fused-attention.py|_attn_fwd|fp32, *fp32:16, i32, i32, tensordesc<fp16[64, 64]>, tensordesc<fp16[32, 64]>, tensordesc<fp16[32, 64]>, tensordesc<fp16[64, 64]>, i32:16, 64, 64, 32, False, 3, False, True|cdiv({C}, 64), 2|-w 4 --num-stages 3 --arch=sm_90a|0.5 {out:m} 1 2 {q} 2*{C} 64 64 1 {k} 2*{C} 64 64 1 {v} 2*{C} 64 64 1 {out:o} 2*{C} 64 64 1 {C}"
  )
  att_cases=("0 128")
  # 06's backward at the tutorial's own blocks, warps and stages: its preprocess, then dK, dV
  # and dQ against the gradients of softmax(q k^T * 0.5) v, causal and not, over two key
  # blocks (the causal diagonal and the blocks before it)
  bwd=(
    "attention_bwd_preprocess|06-fused-attention.py|_attn_bwd_preprocess|*fp16:16, *fp16:16, *fp32:16, i32, i32, i32:16, 128, 64|{C}/128, 2|-w 4|{o} {do} {out:delta} 1 2 {C}"
    "attention_bwd_causal|06-fused-attention.py|_attn_bwd|$ATT_BWD_SIG, True|{C}/128, 1, 2|-w 4 --num-stages 5|{q} {k_arg} {v} 0.5 {do} {out:dq} {out:dk} {out:dv} {m} {delta} 128*{C} 64*{C} 64 1 2 {C}"
    "attention_bwd|06-fused-attention.py|_attn_bwd|$ATT_BWD_SIG, False|{C}/128, 1, 2|-w 4 --num-stages 5|{q} {k_arg} {v} 0.5 {do} {out:dq} {out:dk} {out:dv} {m} {delta} 128*{C} 64*{C} 64 1 2 {C}"
  )
  bwd_cases=("0 256")
  total=0 agree=0 bad=0 later=0
  for group in "rows row_cases" "mm mm_cases" "mm16 mm16_cases" "att att_cases" "bwd bwd_cases"; do
    read -r c k <<<"$group"
    emu_checks "$here/tutorials_ref.py" "$c" "$k"
    agree=$((agree + pass)); bad=$((bad + failed)); later=$((later + notyet))
  done
  total=$((${#rows[@]} + ${#mm[@]} + ${#mm16[@]} + ${#att[@]} + ${#bwd[@]}))
  echo "Triton tutorials on the emulator: $agree agree with NumPy, $later not compiled yet, $bad failed (of $total)"
  [ "$bad" -eq 0 ] && [ "$later" -eq 0 ] || exit 1
  exit 0
fi

if [ "$mode" = sglang-emu ]; then
  fetch_sglang
  numpy_venv
  # sglang's MoE routers: top-k by a packed sort key (tl.topk, tl.bitonic_merge, tl.sort,
  # tl.gather), on token counts that leave a partial block; the columns are fixed by the
  # kernels' constexprs (sglang_ref.py says which)
  sglang_checks=(
    "streaming_topk|moe/gate_topk.py|_streaming_topk_kernel|*fp32:16, i32:16, *fp32:16, *i32:16, i32, i32:16, 256, 6, 8, 32, 32, True|cdiv({R}, 32)|-w 4|{x} 240 {out:values} {out:indices} {R} 240"
    "router_top22|moe/moe_fused_gate.py|_sm120_router_top22_kernel|*fp32:16, *fp32:16, *fp32:16, *i32:16, i32:16, i32:1, fp32, True, True, True|{R}|-w 1|{scores} {bias} {out:weights} {out:ids} 512 1 2.5"
    "sigmoid_gate|moe/sigmoid_gate_topk_renorm.py|_sigmoid_gate_topk_renorm_kernel|*fp32:16, *fp32:16, i32, *fp32:16, *fp32:16, *i32:16, *i32:16, *fp32:16, fp32, i32, i32:16, i32, 256, 6, 8, 2, 8, 1, 128, False, True|{R}|-w 8|{logits} {bias} 272 {out:routed} {out:shared} {out:indices} {packed} {scale} 1.25 {R} 256 258"
  )
  sglang_cases=("5 0" "16 0")
  emu_checks "$here/sglang_ref.py" sglang_checks sglang_cases
  echo "sglang $SGLANG_VERSION on the emulator: $pass agree with NumPy, $notyet not compiled yet, $failed failed (of ${#sglang_checks[@]})"
  [ "$failed" -eq 0 ] && [ "$notyet" -eq 0 ] || exit 1
  exit 0
fi

fetch_liger
numpy_venv
# liger-kernel's elementwise and row kernels (fp32), references in emu_ref.py
checks=(
  "swiglu_fwd|swiglu.py|_swiglu_forward_kernel|*fp32:16, *fp32:16, *fp32:16, i32, fp32, {C}, {B}|{R}|-w 4|{a} {b} {out:c} {C} 1.5"
  "swiglu_bwd|swiglu.py|_swiglu_backward_kernel|*fp32:16, *fp32:16, *fp32:16, i32, fp32, {C}, {B}|{R}|-w 4|{out:dc} {out:a} {out:b} {C} 1.5"
  "geglu_fwd|geglu.py|_geglu_tanh_forward_kernel|*fp32:16, *fp32:16, *fp32:16, i32, {C}, {B}|{R}|-w 4|{a} {b} {out:c} {C}"
  "relu_squared_fwd|relu_squared.py|_relu_squared_forward_kernel|*fp32:16, i32, *fp32:16, i32, {C}, {B}|{R}|-w 4|{out:y} {C} {x} {C}"
  "relu_squared_bwd|relu_squared.py|_relu_squared_backward_kernel|*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, {C}, {B}|{R}|-w 4|{out:dx} {C} {dy} {C} {x} {C}"
  "rms_norm_fwd|rms_norm.py|_rms_norm_forward_kernel|*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, *fp32:16, i32, i32, fp32, fp32, 0, True, {B}|{R}|-w 4|{out:y} {C} {x} {C} {w} 1 {out:rstd} 1 {C} 1e-6 0.0"
  "layer_norm_fwd|layer_norm.py|_layer_norm_forward_kernel|*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, *fp32:16, i32, *fp32:16, i32, *fp32:16, i32, i32, fp32, {B}|{R}|-w 4|{out:y} {C} {x} {C} {w} 1 {b} 1 {out:mean} 1 {out:rstd} 1 {C} 1e-5"
  "softmax_fwd|softmax.py|_softmax_single_block_forward_kernel|*fp32:16, i32, *fp32:16, i32, i32, {B}|{R}|-w 4|{out:y} {C} {x} {C} {C}"
  "softmax_bwd|softmax.py|_softmax_single_block_backward_kernel|*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, i32, {B}|{R}|-w 4|{dy} {C} {y} {C} {out:dx} {C} {C}"
  "dyt_fwd|dyt.py|_dyt_fwd_kernel|*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, True, {C}|cdiv({C}, 1024), {R}|-D BLOCK_N=1024 -w 4|{x} {out:y} {alpha} {gamma} {beta}"
  "element_mul|utils.py|element_mul_kernel|*fp32:16, i32, *fp32:16, i32, {B}, 1|{R}|-w 4|{out:x} {C} {g} {C}"
)
# rows x columns: ragged, with a masked tail in every row
cases=("3 1000" "7 77" "2 2049")

emu_checks "$here/emu_ref.py" checks cases
echo "liger-kernel $LIGER_VERSION on the emulator: $pass agree with NumPy, $notyet not compiled yet, $failed failed (of ${#checks[@]})"
[ "$failed" -eq 0 ] || exit 1
exit 0
