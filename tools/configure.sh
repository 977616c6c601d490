#!/usr/bin/env bash
# Configures a feedprof build tree, pointing CMake at the CUDA toolkit in
# /usr/local/cuda when it has nvcc (CUPTI collection and the CUDA examples
# are then built). Every script that builds feedprof configures through it.
#   tools/configure.sh BUILD_DIR [CMAKE_ARGS...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?usage: tools/configure.sh BUILD_DIR [CMAKE_ARGS...]}"
shift
cuda_args=()
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  cuda_args=(-DCUDAToolkit_ROOT=/usr/local/cuda -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
exec cmake -S "$here" -B "$build" "${cuda_args[@]}" "$@"
