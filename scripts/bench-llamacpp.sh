#!/usr/bin/env bash
# Tessera and llama.cpp side by side on the CPU: the same GGUF files, the same threads, in
# one run. For each model it runs `tessera bench` and llama.cpp's `llama-bench` for prefill
# (a PP-token prompt) and decode (TG tokens after a 128-token prompt), then prints one table
# with both figures, their ratio and the share of the memory bound Tessera's decode reaches.
#
# Usage: scripts/bench-llamacpp.sh [MODEL ...]
#   MODEL: a preset of the quantizer (q4_0, q4_k_m, q6_k, q8_0, bf16, ...) applied to a
#          TinyLlama-shaped model (d_model 2048, 22 layers, 32/4 heads, d_ff 5632, random
#          weights, written once by `tessera init` + `tessera quantize`), f16 for that model
#          unquantized, smollm2 for SmolLM2-135M-Instruct Q4_1 (scripts/fetch-model.sh), or
#          the path of a .gguf file. Default: q4_0 q4_k_m q6_k q8_0 f16 bf16 smollm2.
# Env:   BUILD         Tessera's build folder (default: build)
#        LLAMACPP_BIN  folder with llama-bench (default: where
#                      tools/fixtures/make_llamacpp_fixtures.sh builds it)
#        MODELS        folder for the generated models (default ~/.cache/tessera/bench-models)
#        THREADS (2)  PP (512)  TG (128)  REPEATS (3)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD:-${REPO}/build}"
TESSERA="${BUILD}/bin/tessera"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tessera"
LLAMACPP_BIN="${LLAMACPP_BIN:-${CACHE}/llamacpp-ref/llama_cpp_python-0.3.36/vendor/llama.cpp/build/bin}"
MODELS="${MODELS:-${CACHE}/bench-models}"
THREADS="${THREADS:-2}" PP="${PP:-512}" TG="${TG:-128}" REPEATS="${REPEATS:-3}"
DEPTH=128  # prompt tokens before the measured decode

log() { echo "bench-llamacpp: $*" >&2; }
[ -x "${TESSERA}" ] || { log "no ${TESSERA}: build Tessera first (or set BUILD)"; exit 1; }
[ -x "${LLAMACPP_BIN}/llama-bench" ] || {
  log "no llama-bench in ${LLAMACPP_BIN}: run tools/fixtures/make_llamacpp_fixtures.sh (or set LLAMACPP_BIN)"
  exit 1
}
mkdir -p "${MODELS}"

# The path of MODEL's file, written first when it is a generated one.
model_file() {
  case "$1" in
    *.gguf) echo "$1" ;;
    smollm2) "${REPO}/scripts/fetch-model.sh" ;;
    *)
      local base="${MODELS}/tinyllama-f16.gguf" out="${MODELS}/tinyllama-$1.gguf"
      if [ ! -f "${base}" ]; then
        log "writing ${base}"
        "${TESSERA}" init --arch "${REPO}/models/llama.tsr" --set d_model=2048 --set n_layers=22 --set n_heads=32 \
          --set n_kv_heads=4 --set d_ff=5632 --set n_vocab=32000 --dtype f16 -o "${base}" > /dev/null
      fi
      if [ "$1" = f16 ]; then echo "${base}"; return; fi
      [ -f "${out}" ] || { log "writing ${out}"; "${TESSERA}" quantize "${base}" -o "${out}" --dtype "$1" > /dev/null 2>&1; }
      echo "${out}"
      ;;
  esac
}

# tokens/s of one llama-bench test (-p N or -n N -d DEPTH), from its JSON.
llama_tps() {
  "${LLAMACPP_BIN}/llama-bench" -m "$1" -t "${THREADS}" -r "${REPEATS}" "${@:2}" -o json 2> /dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["avg_ts"])'
}

# One field of tessera bench's JSON.
tessera_field() {
  python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"
}

models=("$@")
[ ${#models[@]} -gt 0 ] || models=(q4_0 q4_k_m q6_k q8_0 f16 bf16 smollm2)
rows=()
for m in "${models[@]}"; do
  file="$(model_file "$m")"
  log "${m}: ${file}"
  tp="$("${TESSERA}" bench -m "${file}" -t "${THREADS}" -p "${PP}" -n 0 -r "${REPEATS}" --no-bandwidth --json)"
  td="$("${TESSERA}" bench -m "${file}" -t "${THREADS}" -p "${DEPTH}" -n "${TG}" -r "${REPEATS}" --json)"
  lp="$(llama_tps "${file}" -p "${PP}" -n 0)"
  ld="$(llama_tps "${file}" -p 0 -n "${TG}" -d "${DEPTH}")"
  rows+=("$(python3 - "$m" "$tp" "$td" "$lp" "$ld" << 'EOF'
import json, sys
name, tp, td, lp, ld = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
p, d, bound = tp["prefill_tokens_per_s"], td["decode_tokens_per_s"], td["decode_bound_tokens_per_s"]
share = f"{100 * d / bound:.0f}%" if bound > 0 else "-"
print(f"| {name} | {p:.1f} | {lp:.1f} | {p / lp:.2f} | {d:.2f} | {ld:.2f} | {d / ld:.2f} | {bound:.2f} | {share} |")
EOF
)")
done

echo "${THREADS} threads; prefill: ${PP}-token prompt; decode: ${TG} tokens after a ${DEPTH}-token prompt; tokens/s"
echo "| model | prefill Tessera | prefill llama.cpp | ratio | decode Tessera | decode llama.cpp | ratio | decode bound | of bound |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
