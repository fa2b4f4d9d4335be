#!/usr/bin/env bash
# Checks the objects of one CPU kernel variant (backends/cpu/isa_target.h):
#  - no symbol the linker may share between variants (a global or weak function outside
#    the variant's namespace) holds an instruction beyond the baseline (VEX/EVEX, AMX,
#    BMI): the linker keeps one body of a weak symbol for all, and a portable copy must
#    never end up calling an AVX-512 one;
#  - the variant's own code does use its instruction set (avx2, avx512), or has none
#    (portable), so the check above looks at real instructions.
# Usage: isa_objects_test.sh LEVEL OBJECT...   (LEVEL: portable, avx2 or avx512)
set -euo pipefail
level="$1"
shift
ns="tessera::cpu::isa_${level}::"
command -v objdump >/dev/null || { echo "isa_objects_test: objdump not found (binutils)" >&2; exit 2; }

shared_bad=0
own_wide=0
for obj in "$@"; do
  report="$(
    {
      nm --defined-only -C "${obj}" | awk '$2 ~ /^[TWVu]$/ { sub(/^[0-9a-f]+ [TWVu] /, ""); print "GLOBAL\t" $0 }'
      objdump -d -C --no-show-raw-insn "${obj}"
    } | awk -v ns="${ns}" '
      /^GLOBAL\t/ { global[substr($0, 8)] = 1; next }
      /^[0-9a-f]+ <.*>:$/ { name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name); next }
      /^ *[0-9a-f]+:\t/ {
        split($0, parts, "\t"); insn = parts[2]; sub(/ .*/, "", insn)
        wide = insn ~ /^v/ || insn ~ /^(tileloadd|tileloaddt1|tilestored|tilezero|tilerelease|ldtilecfg|sttilecfg|tdpb[su][su]d|tdpbf16ps)$/ ||
               insn ~ /^(shlx|shrx|sarx|rorx|bzhi|pdep|pext|mulx|andn|bextr|blsi|blsr|blsmsk)$/
        if (!wide) next
        if (index(name, ns) > 0) { own[name] = 1; next }
        if (name in global) bad[name] = insn
      }
      END {
        for (n in own) print "OWN\t" n
        for (n in bad) print "BAD\t" n "\t" bad[n]
      }')"
  while IFS=$'\t' read -r kind name detail; do
    case "${kind}" in
      OWN) own_wide=$((own_wide + 1)) ;;
      BAD) echo "${obj}: shared symbol outside ${ns} uses ${detail}: ${name}"; shared_bad=$((shared_bad + 1)) ;;
    esac
  done <<< "${report}"
done

echo "${level}: ${own_wide} functions of ${ns} use wide instructions; ${shared_bad} shared symbols outside it do"
[ "${shared_bad}" -eq 0 ] || exit 1
if [ "${level}" = portable ]; then
  [ "${own_wide}" -eq 0 ] || { echo "the portable variant uses wide instructions" >&2; exit 1; }
else
  [ "${own_wide}" -gt 0 ] || { echo "the ${level} variant uses no wide instruction: is its target pragma in effect?" >&2; exit 1; }
fi
