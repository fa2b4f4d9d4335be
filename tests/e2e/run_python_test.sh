#!/bin/sh
# Runs one of the Python end-to-end tests of `tessera serve` with the Python venv that
# scripts/install-deps.sh makes (the official openai package, pinned). Fails, never
# skips, when the venv is missing: these tests are part of the suite.
venv="${TESSERA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tessera/venv}"
if ! "$venv/bin/python" -c "import openai" 2>/dev/null; then
  echo "$0: no Python venv with the openai package at $venv: run scripts/install-deps.sh" >&2
  exit 1
fi
exec "$venv/bin/python" "$@"
