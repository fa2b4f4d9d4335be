#!/usr/bin/env bash
# Checks the GPU backends on a machine with a GPU, in a few minutes: a Release build,
# the devices the plugins see, every Vulkan test on vulkan:0, and `tessera bench` on
# vulkan:0 next to the CPU for the same models. Usage: scripts/gpu-check.sh [BUILD_DIR]
# (default build-gpu). Needs the packages of scripts/install-deps.sh and the test data.
set -uo pipefail
cd "$(dirname "$0")/.."

build="${1:-build-gpu}"
data="${TESSERA_TESTDATA:-../shared/testdata}"
models="${build}/bench-models"
tessera="${build}/bin/tessera"
status=0

step() { echo; echo "==> $*"; }

step "build ${build}"
cmake -S . -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
cmake --build "${build}" -j "$(nproc)" >/dev/null || exit 1

step "devices"
"${tessera}" backends | grep -E "^plugin|device "
if "${tessera}" backends | grep -q "device vulkan:0: .*, CPU, "; then
  echo "note: vulkan:0 is a CPU implementation (no GPU Vulkan driver found)"
fi

step "Vulkan tests on vulkan:0 (validation layer on)"
ctest --test-dir "${build}" -L vulkan -j 4 --output-on-failure > "${build}/vulkan-tests.log" 2>&1 || status=1
grep -E "tests passed|\*\*\*|Failed" "${build}/vulkan-tests.log" | head -40
echo "(full output: ${build}/vulkan-tests.log)"

step "bench models"
mkdir -p "${models}"
[ -f "${models}/llama512.gguf" ] || "${tessera}" init --arch models/llama.tsr --set d_model=512 --set n_layers=8 \
  --set n_heads=8 --set n_kv_heads=4 --set d_ff=1408 --set n_vocab=32000 --dtype f16 -o "${models}/llama512.gguf" | tail -1
[ -f "${models}/llama2048q8.gguf" ] || "${tessera}" init --arch models/llama.tsr --set d_model=2048 --set n_layers=16 \
  --set n_heads=32 --set n_kv_heads=8 --set d_ff=5632 --set n_vocab=32000 --dtype q8_0 \
  -o "${models}/llama2048q8.gguf" | tail -1

bench() {  # NAME BACKEND ARGS...
  local name="$1" backend="$2"; shift 2
  echo "-- ${name} on ${backend}"
  # The bandwidth bound is the host's memory: meaningful for the CPU backend only.
  local bandwidth=()
  [ "${backend}" = cpu ] || bandwidth=(--no-bandwidth)
  "${tessera}" bench -b "${backend}" "${bandwidth[@]}" "$@" 2>&1 | grep -E "^(model|prefill|decode|weights|memory|throughput|TTFT|TPOT)" || status=1
}
for backend in vulkan cpu; do
  bench "stories260K" "${backend}" -m "${data}/stories260K/stories260K.gguf" -p 128 -n 64 -r 3
  bench "llama 512-d f16" "${backend}" -m "${models}/llama512.gguf" -p 256 -n 64 -r 3
  bench "llama 2048-d q8_0 (1.1B shape)" "${backend}" -m "${models}/llama2048q8.gguf" -p 256 -n 32 -r 2
done
bench "llama 512-d f16, 4096-token context (split-KV decode)" vulkan -m "${models}/llama512.gguf" -c 8192 -p 4096 -n 64 -r 1
TESSERA_VULKAN_INT8_DOT=0 bench "llama 2048-d q8_0 without int8 dot" vulkan -m "${models}/llama2048q8.gguf" -p 256 -n 32 -r 2
bench "llama 512-d f16, 16 requests at once" vulkan -m "${models}/llama512.gguf" --concurrency 16 -p 128 -n 64

step "done (status ${status})"
exit "${status}"
