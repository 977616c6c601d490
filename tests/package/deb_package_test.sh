#!/usr/bin/env bash
# The Debian package as a user gets it: builds the .deb of this build tree
# with cpack, unpacks it into a scratch root (nothing is installed on the
# system) and checks what is in it: the control fields, the file list, the
# installed CLI finding the installed libfeedprof.so when it records, the
# man page, and a separate CMake project that finds the installed analysis
# library with find_package(feedprof) and reads the same trace.
#
#   deb_package_test.sh CPACK SOURCE_DIR BUILD_DIR VERSION
# Exits 77 (skipped) when cpack, dpkg-deb or dpkg-shlibdeps is missing.
set -euo pipefail
cpack="$1"
source_dir="$2"
build_dir="$3"
version="$4"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[[ -x "$cpack" ]] || command -v "$cpack" >/dev/null || skip "no cpack ($cpack)"
for tool in dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || skip "no $tool: the Debian package cannot be built here"
done
[[ -f "$build_dir/CPackConfig.cmake" ]] || fail "no $build_dir/CPackConfig.cmake"

work="$(mktemp -d -t feedprof-deb-test.XXXXXX)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT
root="$work/root"
# The installed tools must find their own files, not ones named here.
unset FEEDPROF_LIBRARY FEEDPROF_OUTPUT_DIR

# 1. Build the package into the scratch directory.
start=$SECONDS
"$cpack" -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/cpack" >"$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
echo "cpack -G DEB: $((SECONDS - start)) s"
debs=("$work"/cpack/*.deb)
((${#debs[@]} == 1)) && [[ -f "${debs[0]}" ]] \
  || { cat "$work/cpack.log"; fail "expected one .deb in $work/cpack, found: ${debs[*]}"; }
deb="${debs[0]}"
arch="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
[[ "$(basename "$deb")" == "feedprof_${version}_${arch}.deb" ]] \
  || fail "package file is $(basename "$deb"), expected feedprof_${version}_${arch}.deb"
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"

# 2. Control fields.
dpkg-deb -I "$deb" >"$work/info"
field() { sed -n "s/^ $1: //p" "$work/info"; }
[[ "$(field Package)" == feedprof ]] || { cat "$work/info"; fail "Package is not feedprof"; }
[[ "$(field Version)" == "$version" ]] || { cat "$work/info"; fail "Version is not $version"; }
[[ "$(field Maintainer)" == "feedprof developers" ]] || { cat "$work/info"; fail "wrong Maintainer"; }
[[ "$(field Section)" == devel ]] || { cat "$work/info"; fail "Section is not devel"; }
[[ "$(field Architecture)" == "$arch" ]] || { cat "$work/info"; fail "Architecture is not $arch"; }
! grep -q '^ Homepage:' "$work/info" || fail "the package names a homepage; it has none"
depends="$(field Depends)"
echo "Depends: $depends"
# dpkg-shlibdeps names the C library, the C++ runtime and the CLI's own
# shared libraries (protobuf, zlib, SQLite); none of them is feedprof.
for dep in 'libc6 (>= ' 'libstdc++6 (>= ' libprotobuf zlib1g libsqlite3-0; do
  [[ "$depends" == *"$dep"* ]] || fail "Depends lacks $dep: $depends"
done

# 3. Files: everything under /usr, each part where it belongs.
dpkg-deb -c "$deb" >"$work/contents"
dpkg-deb -x "$deb" "$root"
if awk '{ print $6 }' "$work/contents" | grep -v '^\./usr/' | grep -vx '\./'; then
  fail "files outside /usr (listed above)"
fi
libdir=""
for dir in lib lib64 "lib/$(gcc -print-multiarch 2>/dev/null || true)"; do
  [[ -f "$root/usr/$dir/libfeedprof.so" ]] && libdir="$dir"
done
[[ -n "$libdir" ]] || { cat "$work/contents"; fail "no libfeedprof.so in usr/lib, usr/lib64 or usr/lib/<multiarch>"; }
for file in bin/feedprof \
            "$libdir/libfeedprof.so" \
            "$libdir/libfeedprof_analysis.a" "$libdir/libfeedprof_kineto.a" \
            "$libdir/libfeedprof_pipeline.a" "$libdir/libfeedprof_proto.a" \
            "$libdir/cmake/feedprof/feedprofConfig.cmake" \
            "$libdir/cmake/feedprof/feedprofConfigVersion.cmake" \
            "$libdir/cmake/feedprof/feedprofTargets.cmake" \
            share/man/man1/feedprof.1.gz \
            share/doc/feedprof/README.md share/doc/feedprof/recording.md \
            share/doc/feedprof/install.md; do
  [[ -f "$root/usr/$file" ]] || { cat "$work/contents"; fail "usr/$file is not in the package"; }
done
[[ -x "$root/usr/bin/feedprof" ]] || fail "usr/bin/feedprof is not executable"
for header in "$source_dir"/lib/include/feedprof/*.h; do
  cmp -s "$header" "$root/usr/include/feedprof/$(basename "$header")" \
    || fail "usr/include/feedprof/$(basename "$header") is missing or differs from the source"
done
for page in "$source_dir"/docs/*.md; do
  [[ -f "$root/usr/share/doc/feedprof/$(basename "$page")" ]] \
    || fail "docs/$(basename "$page") is not in usr/share/doc/feedprof"
done
# The packaged (stripped) library keeps its entry points and its rule of
# depending on the C library family only.
# (Into files, then grep: with pipefail, "producer | grep -q" fails when grep
# exits at the first match and the producer dies of SIGPIPE.)
readelf --dyn-syms -W "$root/usr/$libdir/libfeedprof.so" >"$work/dynsyms"
grep -qw InitializeInjection "$work/dynsyms" \
  || fail "the packaged libfeedprof.so lost InitializeInjection"
needed="$(readelf -d "$root/usr/$libdir/libfeedprof.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
while read -r lib; do
  [[ "$lib" =~ ^(libc|libm|libdl|libpthread|librt|ld-linux[-a-z0-9_]*)\.so ]] \
    || fail "the packaged libfeedprof.so needs $lib"
done <<<"$needed"

# 4. The installed CLI: version, and a recording it makes with the
# installed libfeedprof.so (it looks beside its own bin/ only).
out="$("$root/usr/bin/feedprof" --version)"
[[ "$out" == "feedprof $version" ]] || fail "feedprof --version printed '$out'"
# A shell that burns ~0.5 s of CPU; a short flush interval gives it its
# trace file before it ends (dash ends with _exit).
rc=0
FEEDPROF_FLUSH_INTERVAL_MS=100 "$root/usr/bin/feedprof" record -o "$work/trace" -- \
  sh -c 'i=0; while [ "$i" -lt 1000000 ]; do i=$((i + 1)); done' >"$work/record.log" 2>&1 || rc=$?
((rc == 0)) || { cat "$work/record.log"; fail "feedprof record exited $rc"; }
grep -q "session written to $work/trace" "$work/record.log" \
  || { cat "$work/record.log"; fail "feedprof record wrote no session"; }
traces=("$work"/trace/*.fpt)
((${#traces[@]} == 1)) && [[ -f "${traces[0]}" ]] || fail "expected one trace file, found: ${traces[*]}"
rc=0
"$root/usr/bin/feedprof" analyze "$work/trace" >"$work/analyze.log" 2>"$work/analyze.err" || rc=$?
((rc == 0)) || { cat "$work/analyze.log" "$work/analyze.err"; fail "feedprof analyze exited $rc"; }
cli_verdict="$(sed -n 's/^Verdict: \([a-z_]*\).*/\1/p' "$work/analyze.log")"
[[ -n "$cli_verdict" ]] || { cat "$work/analyze.log"; fail "no 'Verdict:' line"; }
cli_events="$(sed -n '1s/.*(feedprof, \([0-9]*\) events).*/\1/p' "$work/analyze.log")"
[[ "$cli_events" =~ ^[0-9]+$ ]] && ((cli_events > 0)) \
  || { cat "$work/analyze.log"; fail "analyze counted no events"; }
grep -q '^  [0-9]*/[0-9]* sh: .*cpu [1-9]' "$work/analyze.log" \
  || { cat "$work/analyze.log"; fail "the shell's CPU time is not in the report"; }

# 5. The man page: gzip -9n (no name, no time stamp), and valid roff with a
# section per command.
gz_header="$(od -An -tx1 -N8 "$root/usr/share/man/man1/feedprof.1.gz" | tr -d ' \n')"
[[ "$gz_header" == 1f8b0800000000* ]] \
  || fail "feedprof.1.gz header $gz_header: not gzip -n (name or time stamp stored)"
zcat "$root/usr/share/man/man1/feedprof.1.gz" >"$work/feedprof.1"
grep -q "^\.TH FEEDPROF 1 .*\"feedprof $version\"" "$work/feedprof.1" || fail "no .TH line with the version"
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww "$work/feedprof.1" 2>"$work/groff.err" | sed 's/.\x08//g' >"$work/man.txt"
  [[ ! -s "$work/groff.err" ]] || { cat "$work/groff.err"; fail "groff warned on the man page"; }
  for heading in NAME SYNOPSIS DESCRIPTION "FEEDPROF RECORD" "FEEDPROF DUMP" \
                 "FEEDPROF ANALYZE" ENVIRONMENT "EXIT STATUS"; do
    grep -q "^$heading\$" "$work/man.txt" || fail "the man page has no $heading section"
  done
  grep -q -- '--include-pre-window' "$work/man.txt" \
    || fail "the analyze options are not in the rendered man page"
else
  echo "no groff: the man page is only checked as text"
fi

# 6. A separate project built against the unpacked package only.
cmake -S "$source_dir/tests/package/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/consumer.log" 2>&1 \
  || { cat "$work/consumer.log"; fail "the consumer project did not configure"; }
grep -q "feedprof $version from $root/usr/" "$work/consumer.log" \
  || { cat "$work/consumer.log"; fail "the consumer found feedprof somewhere else"; }
cmake --build "$work/consumer" -j2 >>"$work/consumer.log" 2>&1 \
  || { cat "$work/consumer.log"; fail "the consumer project did not build"; }
out="$("$work/consumer/feedprof_consumer" "$work/trace")" || fail "feedprof_consumer exited $?: $out"
echo "consumer: $out"
[[ "$out" == *"processes=1 events=$cli_events verdict=$cli_verdict"* ]] \
  || fail "the consumer printed '$out'; the CLI said $cli_events events, verdict $cli_verdict"
[[ "$out" == *"json_schema=feedprof.analysis/1"* ]] || fail "the consumer's JSON report has no schema"
echo "PASS: $(basename "$deb") builds, unpacks, records, analyses and links ($((SECONDS - start)) s)"
