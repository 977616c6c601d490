#!/usr/bin/env bash
# Installs the Debian packages feedprof needs to build and test.
# Idempotent: packages already present are left alone.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  protobuf-compiler libprotobuf-dev libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev libisal-dev libsqlite3-dev sqlite3 libcli11-dev
  libdw-dev elfutils
  python3 binutils
  chromium python3-pil
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all build packages present"
fi

if [[ -d /usr/local/cuda ]]; then
  echo "setup: CUDA toolkit at /usr/local/cuda (CUPTI collection and CUDA examples will be built)"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda: building host-only"
fi
