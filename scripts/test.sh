#!/usr/bin/env bash
# Builds Tessera twice (optimised, and with AddressSanitizer + UndefinedBehaviorSanitizer)
# and runs the whole test suite in both. Usage: scripts/test.sh [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="${TESSERA_JOBS:-$(nproc)}"

run_suite() {
  local dir="$1"; shift
  local -a cmake_args=("$@")
  echo "==> configure ${dir} ${cmake_args[*]}"
  cmake -S . -B "${dir}" -G Ninja "${cmake_args[@]}" >/dev/null
  echo "==> build ${dir}"
  cmake --build "${dir}" -j "${jobs}"
  echo "==> test ${dir}"
  ctest --test-dir "${dir}" --output-on-failure -j "${jobs}" "${CTEST_ARGS[@]}"
}

CTEST_ARGS=("$@")
# The tests that compare SmolLM2-135M-Instruct with llama.cpp read it from here.
TESSERA_SMOLLM2="$(scripts/fetch-model.sh)"
export TESSERA_SMOLLM2
run_suite build -DCMAKE_BUILD_TYPE=Release
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="print_stacktrace=1" \
  run_suite build-sanitize -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON
echo "==> all tests passed (release and sanitizer builds)"
