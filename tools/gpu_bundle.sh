#!/usr/bin/env bash
# Builds a self-contained feedprof install tree for a GPU machine that has a
# CUDA driver but none of the build dependencies (protobuf, abseil, sqlite):
# the CLI, libfeedprof.so, the CUDA examples, and the CLI's shared libraries
# (beside it, found through its RPATH). glibc and libstdc++ are taken from
# the target machine, so build on a system no newer than it.
#
#   tools/gpu_bundle.sh DIR [BUILD_DIR]
#
# Then, on the GPU machine: tools/gpu_check.sh --prefix DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:?usage: tools/gpu_bundle.sh DIR [BUILD_DIR]}"
build="${2:-$here/build-bundle}"
deps_rel="lib/feedprof/deps"

bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=Release \
  -DFEEDPROF_BUILD_TESTS=OFF -DFEEDPROF_BUILD_BENCHMARKS=OFF \
  -DCMAKE_INSTALL_LIBDIR=lib \
  "-DFEEDPROF_CLI_INSTALL_RPATH=\$ORIGIN/../$deps_rel" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
rm -rf "$dest"
cmake --install "$build" --prefix "$dest" --strip >/dev/null
[[ -x "$dest/bin/feedprof" ]] || { echo "gpu_bundle: the install has no bin/feedprof" >&2; exit 1; }
[[ -f "$dest/lib/libfeedprof.so" ]] || { echo "gpu_bundle: the install has no lib/libfeedprof.so" >&2; exit 1; }
ls "$dest"/libexec/feedprof/examples/example_* >/dev/null 2>&1 \
  || { echo "gpu_bundle: no CUDA examples were built (is nvcc found?)" >&2; exit 1; }

# The libraries `ldd` says the CLI loads, as absolute paths.
loaded_libraries() { ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'; }
# The C and C++ runtime, taken from the target machine.
is_system_runtime() {
  case "$(basename "$1")" in
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) return 0 ;;
    *) return 1 ;;
  esac
}

# Every shared library the CLI needs except the C/C++ runtime itself.
mkdir -p "$dest/$deps_rel"
loaded_libraries "$build/tools/feedprof" | while read -r lib; do
  is_system_runtime "$lib" || cp -L "$lib" "$dest/$deps_rel/"
done
# The bundled CLI must resolve them from the bundle, not from this system.
dest="$(cd "$dest" && pwd -P)"
missing="$(loaded_libraries "$dest/bin/feedprof" | while read -r lib; do
  lib="$(readlink -f "$lib")"
  [[ "$lib" == "$dest/$deps_rel/"* ]] || is_system_runtime "$lib" || echo "$lib"
done)"
if [[ -n "$missing" ]]; then
  echo "gpu_bundle: the bundled CLI still loads from the system: $missing" >&2
  exit 1
fi
echo "gpu_bundle: $(du -sh "$dest" | cut -f1) in $dest"
