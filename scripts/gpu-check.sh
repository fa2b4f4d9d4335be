#!/usr/bin/env bash
# Checks the GPU backends on a machine with a GPU, within 8 minutes of device time:
#  - a Release build (CUDA code for this GPU's architecture only);
#  - the devices the plugins see, and the device's copy bandwidth and f16 cuBLAS GEMM
#    rate (tessera_cuda_device_peaks);
#  - every CUDA test on cuda:0 (ctest -L cuda: each kernel against the CPU reference,
#    golden stories260K text, --verify cpu), then every Vulkan test on vulkan:0;
#  - `tessera bench` on cuda:0 and vulkan:0 for the same models (small ones on the CPU
#    too), each GPU decode figure set against the roofline: the copy bandwidth / weight
#    bytes per token; 64 concurrent requests on the TinyLlama shape on both GPUs.
# Every figure goes to BUILD_DIR/gpu-check.json. Each bench run is capped at 120 s.
# Usage: scripts/gpu-check.sh [BUILD_DIR] (default build-gpu). GPU_CHECK_VULKAN=0 skips
# the Vulkan part. Needs the packages of scripts/install-deps.sh and the test data.
set -uo pipefail
cd "$(dirname "$0")/.."

build="${1:-build-gpu}"
data="${TESSERA_TESTDATA:-../shared/testdata}"
models="${build}/bench-models"
tessera="${build}/bin/tessera"
json="${build}/gpu-check.json"
vulkan="${GPU_CHECK_VULKAN:-1}"
status=0
entries=()

step() { echo; echo "==> $*"; }

# The GPU's architecture ("90" for compute capability 9.0), so nvcc builds only that.
arch=90
if command -v nvidia-smi >/dev/null; then
  cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')"
  [ -n "${cap}" ] && arch="${cap}"
fi

step "build ${build} (CUDA architecture ${arch})"
cmake -S . -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${arch}" >/dev/null || exit 1
cmake --build "${build}" -j "$(nproc)" >/dev/null || exit 1

step "devices"
"${tessera}" backends | grep -E "^plugin|device |devices: "
peaks="$("${build}/bin/tessera_cuda_device_peaks" 2>&1)" || { echo "${peaks}"; peaks=""; status=1; }
echo "${peaks}"
[ -n "${peaks}" ] && entries+=("\"device_peaks\": ${peaks}")
copy_bw="$(sed -n 's/.*"copy_bandwidth_bytes_per_s":\([0-9.e+]*\).*/\1/p' <<< "${peaks}")"

run_tests() {  # LABEL
  step "${1} tests"
  local log="${build}/${1}-tests.log"
  ctest --test-dir "${build}" -L "${1}" -j 4 --output-on-failure > "${log}" 2>&1 || status=1
  grep -E "tests passed|\*\*\*(Failed|Exception|Timeout)|tests FAILED" "${log}" | head -40
  echo "(full output: ${log})"
  entries+=("\"${1}_tests\": \"$(grep -E 'tests passed' "${log}" | tail -1)\"")
}
run_tests cuda
[ "${vulkan}" = 1 ] && run_tests vulkan

step "bench models"
mkdir -p "${models}"
init() {  # FILE D_MODEL LAYERS HEADS KV_HEADS D_FF DTYPE
  [ -f "${models}/$1" ] || "${tessera}" init --arch models/llama.tsr --set d_model="$2" --set n_layers="$3" \
    --set n_heads="$4" --set n_kv_heads="$5" --set d_ff="$6" --set n_vocab=32000 --dtype "$7" -o "${models}/$1" | tail -1
}
init llama512.gguf 512 8 8 4 1408 f16
init tinyllama-q8_0.gguf 2048 22 32 4 5632 q8_0
init tinyllama-f16.gguf 2048 22 32 4 5632 f16

bench() {  # NAME BACKEND ARGS...
  local name="$1" backend="$2"; shift 2
  echo "-- ${name} on ${backend}"
  local out
  out="$(timeout 120 "${tessera}" bench -b "${backend}" --no-bandwidth --json "$@" 2>"${build}/bench.err")" || {
    status=1; tail -3 "${build}/bench.err"; return; }
  echo "${out}"
  local decode bytes
  decode="$(sed -n 's/.*"decode_tokens_per_s":\([0-9.e+]*\).*/\1/p' <<< "${out}")"
  bytes="$(sed -n 's/.*"weight_bytes_per_token":\([0-9.e+]*\).*/\1/p' <<< "${out}")"
  if [ "${backend}" != cpu ] && [ -n "${copy_bw}" ] && [ -n "${decode}" ] && [ -n "${bytes}" ]; then
    awk -v d="${decode}" -v b="${bytes}" -v bw="${copy_bw}" \
      'BEGIN { printf "   decode %.1f tok/s = %.0f%% of the roofline (%.1f tok/s)\n", d, 100 * d * b / bw, bw / b }'
  fi
  entries+=("\"${name} on ${backend}\": ${out}")
}
backends=(cuda)
[ "${vulkan}" = 1 ] && backends+=(vulkan)
for backend in "${backends[@]}" cpu; do
  bench "stories260K" "${backend}" -m "${data}/stories260K/stories260K.gguf" -p 128 -n 64 -r 3
  bench "llama 512-d f16" "${backend}" -m "${models}/llama512.gguf" -p 256 -n 64 -r 3
done
for backend in "${backends[@]}"; do
  bench "tinyllama-shape q8_0" "${backend}" -m "${models}/tinyllama-q8_0.gguf" -p 512 -n 64 -r 2
  bench "tinyllama-shape f16" "${backend}" -m "${models}/tinyllama-f16.gguf" -p 512 -n 64 -r 2
done
if [ "${vulkan}" = 1 ]; then
  "${tessera}" backends | grep -q "device vulkan:0: .*, CPU, " && echo "note: vulkan:0 is a CPU implementation"
  bench "llama 512-d f16, 4096-token context (split-KV decode)" vulkan -m "${models}/llama512.gguf" -c 8192 -p 4096 \
    -n 64 -r 1
  TESSERA_VULKAN_INT8_DOT=0 bench "tinyllama-shape q8_0 without int8 dot" vulkan -m "${models}/tinyllama-q8_0.gguf" \
    -p 256 -n 32 -r 2
fi
for backend in cuda vulkan; do
  [ "${backend}" = vulkan ] && [ "${vulkan}" != 1 ] && continue
  bench "tinyllama-shape f16, 64 requests of 512+128" "${backend}" -m "${models}/tinyllama-f16.gguf" \
    --concurrency 64 --requests 64 -p 512 -n 128
done

{
  echo "{"
  for i in "${!entries[@]}"; do
    sep=","
    [ "${i}" -eq $((${#entries[@]} - 1)) ] && sep=""
    echo "  ${entries[$i]}${sep}"
  done
  echo "}"
} > "${json}"
step "done (status ${status}); figures in ${json}"
exit "${status}"
