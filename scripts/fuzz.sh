#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (build-fuzz: the engine library
# instrumented for libFuzzer, ASan and UBSan; no backends or tools) and runs each for
# SECONDS (default 60), from its seed corpus in tests/fuzz/corpus. Fails when a target
# crashes, leaks, trips a sanitizer, breaks one of its invariants or exceeds its time or
# memory limit; the input is kept in build-fuzz/artifacts/ with the command that replays it.
# Prints, per target: executions, executions per second, and coverage (cov: edges,
# ft: features) from libFuzzer's final line.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   TARGET: gguf safetensors hf_config chat_template tokenizer dsl serve_request (default: all).
#   TESSERA_JOBS targets run at once (default: the CPU count). tests/fuzz/README.md says
#   how to replay, minimize and add a finding.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then targets=(gguf safetensors hf_config chat_template tokenizer dsl serve_request); fi
jobs="${TESSERA_JOBS:-$(nproc)}"
build=build-fuzz

# Longest input per target: above its largest seed, and long enough to nest past the
# readers' depth limits.
declare -A max_len=([gguf]=65536 [safetensors]=8192 [hf_config]=4096 [chat_template]=8192 [tokenizer]=2048
                    [dsl]=16384 [serve_request]=8192)

for t in "${targets[@]}"; do
  if [ -z "${max_len[$t]:-}" ]; then
    echo "fuzz: unknown target '$t' (known: ${!max_len[*]})" >&2
    exit 2
  fi
done

echo "==> configure ${build} (clang, TESSERA_FUZZ)"
# -O1 -g, and no NDEBUG: asserts stay on, stacks stay readable.
CC=clang CXX=clang++ cmake -S . -B "${build}" -G Ninja -DTESSERA_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" >/dev/null
echo "==> build ${build}"
build_start=$(date +%s)
cmake --build "${build}" -j "${jobs}" --target $(printf '%s_fuzz ' "${targets[@]}")
echo "==> built in $(( $(date +%s) - build_start )) s"

mkdir -p "${build}/artifacts" "${build}/logs"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

# Runs one target; its libFuzzer output goes to logs/NAME.log. New inputs go to the
# working corpus build-fuzz/corpus/NAME; the committed seeds are only read.
run_target() {
  local t="$1"
  local work="${build}/corpus/${t}"
  local -a args=(-max_total_time="${seconds}" -max_len="${max_len[$t]}" -rss_limit_mb=2048 -timeout=30
                 -print_final_stats=1 -artifact_prefix="${build}/artifacts/${t}-")
  if [ -f "tests/fuzz/${t}.dict" ]; then args+=(-dict="tests/fuzz/${t}.dict"); fi
  mkdir -p "${work}"
  "${build}/bin/${t}_fuzz" "${args[@]}" "${work}" "tests/fuzz/corpus/${t}" >"${build}/logs/${t}.log" 2>&1
}

# What a finished target reports: its final stats, or where its crashing input is.
report() {
  local t="$1" rc="$2"
  local log="${build}/logs/${t}.log"
  if [ "${rc}" -eq 0 ]; then
    local done_line runs per_s cov ft
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE ' "${log}" | tail -1 || true)
    runs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"${done_line}")
    per_s=$(grep -oE 'exec/s: [0-9]+' <<<"${done_line}" | grep -oE '[0-9]+' || true)
    cov=$(grep -oE 'cov: [0-9]+' <<<"${done_line}" | grep -oE '[0-9]+' || true)
    ft=$(grep -oE 'ft: [0-9]+' <<<"${done_line}" | grep -oE '[0-9]+' || true)
    printf 'fuzz %-14s ok    %10s executions %7s exec/s  cov: %-6s ft: %s\n' "${t}" "${runs}" "${per_s}" "${cov}" "${ft}"
  else
    local artifact
    artifact=$(grep -oE "Test unit written to [^ ]+" "${log}" | tail -1 | sed 's/Test unit written to //' || true)
    printf 'fuzz %-14s FAIL  (exit %s)\n' "${t}" "${rc}"
    grep -E 'ERROR: |SUMMARY: |runtime error|fuzz invariant broken|terminate called|what\(\)' "${log}" | head -8 |
      sed 's/^/    /' || true
    echo "    log: ${log}"
    if [ -n "${artifact}" ]; then echo "    input: ${artifact}  replay: ${build}/bin/${t}_fuzz ${artifact}"; fi
  fi
}

echo "==> run ${targets[*]}: ${seconds} s each, ${jobs} at a time"
declare -A pid_of
failed=0
pending=("${targets[@]}")
running=0
finish_one() {
  local pid rc=0 t
  wait -n -p pid || rc=$?
  for t in "${!pid_of[@]}"; do
    if [ "${pid_of[$t]}" = "${pid}" ]; then
      unset "pid_of[$t]"
      report "${t}" "${rc}"
      [ "${rc}" -eq 0 ] || failed=1
    fi
  done
  running=$((running - 1))
}
for t in "${pending[@]}"; do
  if [ "${running}" -ge "${jobs}" ]; then finish_one; fi
  run_target "${t}" &
  pid_of[$t]=$!
  running=$((running + 1))
done
while [ "${running}" -gt 0 ]; do finish_one; done

if [ "${failed}" -ne 0 ]; then
  echo "==> fuzzing found a problem (see above)"
  exit 1
fi
echo "==> fuzzing: no crash in ${#targets[@]} targets"
