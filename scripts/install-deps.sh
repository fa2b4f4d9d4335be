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
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
