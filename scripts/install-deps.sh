#!/usr/bin/env bash
# Installs the Debian packages Tessera builds and tests with (Debian 12 "bookworm").
# Used by the README's first command and by CI; safe to run again.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libboost-dev libboost-filesystem-dev
  tao-pegtl-dev
  nlohmann-json3-dev  # safetensors headers, config.json of Hugging Face model folders
  libgtest-dev libgmock-dev libbenchmark-dev
  # The Vulkan backend: loader and headers, Mesa's lavapipe (a CPU Vulkan device, so
  # the Vulkan tests run anywhere), the validation layer, and glslang for the shaders.
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
  glslang-tools glslang-dev spirv-tools
  libedit-dev  # line editing and history in `tessera chat` (BSD-licensed)
  tmux         # the end-to-end test of `tessera chat` in a real terminal
  libcpp-httplib-dev  # the HTTP server of `tessera serve` (pkg-config cpp-httplib)
  curl python3-venv   # the end-to-end tests of `tessera serve` (raw SSE; a venv for the openai client)
  clang libclang-rt-14-dev  # the fuzz targets (scripts/fuzz.sh): clang 14, libFuzzer and its sanitizers
)

# The official openai Python client, pinned, in a venv the tests of `tessera serve` run
# (tests/e2e/run_python_test.sh looks in the same place).
OPENAI_VERSION="1.109.1"
VENV="${TESSERA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tessera/venv}"

install_python_client() {
  if "$VENV/bin/python" -c "import openai, sys; sys.exit(openai.__version__ != '$OPENAI_VERSION')" 2>/dev/null; then
    echo "install-deps: openai $OPENAI_VERSION already in $VENV"
    return
  fi
  echo "install-deps: installing openai $OPENAI_VERSION in $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "openai==$OPENAI_VERSION"
}

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
install_python_client
