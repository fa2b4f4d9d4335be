#!/usr/bin/env bash
# Tessera and llama.cpp side by side on the CPU: the same GGUF files, the same threads, in
# one run. For each model it runs `tessera bench` and llama.cpp's `llama-bench` for prefill
# (a PP-token prompt) and decode (TG tokens after a 128-token prompt), then prints one table
# with both figures, their ratio and the share of the memory bound Tessera's decode reaches.
# Memory bandwidth can drift between runs (on some machines it doubles and halves from one
# second to the next), so each model is measured in ROUNDS rounds, Tessera and llama.cpp
# back to back and in turn first; the table gives each side's median and the median of the
# rounds' ratios, with their range.
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
#        THREADS (2)  PP (512)  TG (128)  REPEATS (3, per run)  ROUNDS (3)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD:-${REPO}/build}"
TESSERA="${BUILD}/bin/tessera"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tessera"
LLAMACPP_BIN="${LLAMACPP_BIN:-${CACHE}/llamacpp-ref/llama_cpp_python-0.3.36/vendor/llama.cpp/build/bin}"
MODELS="${MODELS:-${CACHE}/bench-models}"
THREADS="${THREADS:-2}" PP="${PP:-512}" TG="${TG:-128}" REPEATS="${REPEATS:-3}" ROUNDS="${ROUNDS:-3}"
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

# One round's runs of model file "${file}", appended to tp/td (Tessera's JSON) and lp/ld.
tessera_runs() {
  tp+=("$("${TESSERA}" bench -m "${file}" -t "${THREADS}" -p "${PP}" -n 0 -r "${REPEATS}" --no-bandwidth --json)")
  td+=("$("${TESSERA}" bench -m "${file}" -t "${THREADS}" -p "${DEPTH}" -n "${TG}" -r "${REPEATS}" --json)")
}
llama_runs() {
  lp+=("$(llama_tps "${file}" -p "${PP}" -n 0)")
  ld+=("$(llama_tps "${file}" -p 0 -n "${TG}" -d "${DEPTH}")")
}

models=("$@")
[ ${#models[@]} -gt 0 ] || models=(q4_0 q4_k_m q6_k q8_0 f16 bf16 smollm2)
rows=()
for m in "${models[@]}"; do
  file="$(model_file "$m")"
  tp=() td=() lp=() ld=()
  for ((r = 0; r < ROUNDS; r++)); do
    log "${m}: round $((r + 1)) of ${ROUNDS} (${file})"
    if ((r % 2 == 0)); then tessera_runs; llama_runs; else llama_runs; tessera_runs; fi
  done
  rows+=("$(python3 - "$m" "$(printf '%s\n' "${tp[@]}")" "$(printf '%s\n' "${td[@]}")" "${lp[*]}" "${ld[*]}" << 'EOF'
import json, statistics, sys
name = sys.argv[1]
tp = [json.loads(l)["prefill_tokens_per_s"] for l in sys.argv[2].splitlines()]
runs = [json.loads(l) for l in sys.argv[3].splitlines()]
td = [r["decode_tokens_per_s"] for r in runs]
lp, ld = [float(v) for v in sys.argv[4].split()], [float(v) for v in sys.argv[5].split()]
bound = max(r["decode_bound_tokens_per_s"] for r in runs)  # the best bandwidth seen beside decode
med = statistics.median
def ratio(a, b):
    rs = [x / y for x, y in zip(a, b)]
    return f"{med(rs):.2f} ({min(rs):.2f}-{max(rs):.2f})" if len(rs) > 1 else f"{rs[0]:.2f}"
share = f"{100 * max(td) / bound:.0f}%" if bound > 0 else "-"
print(f"| {name} | {med(tp):.1f} | {med(lp):.1f} | {ratio(tp, lp)} | {med(td):.2f} | {med(ld):.2f} | "
      f"{ratio(td, ld)} | {bound:.2f} | {share} |")
EOF
)")
done

echo "${THREADS} threads; prefill: ${PP}-token prompt; decode: ${TG} tokens after a ${DEPTH}-token prompt; tokens/s,"
echo "medians of ${ROUNDS} rounds; ratio: the median of the rounds' ratios (their range); of bound: the best decode"
echo "round against the bound from the best bandwidth sampled beside Tessera's decode runs"
echo "| model | prefill Tessera | prefill llama.cpp | ratio | decode Tessera | decode llama.cpp | ratio | decode bound | of bound |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
