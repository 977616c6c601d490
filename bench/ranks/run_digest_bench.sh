#!/usr/bin/env bash
# Analysis at cluster scale on this machine: N rank files made from the
# shared Kineto trace hta_cuda_graphs/rank0.json.gz (one rank late at every
# collective), each digested by its own `feedprof digest` (the map, under
# xargs -P), then `feedprof analyze` of the digest directory (the reduce).
# Prints the whole commands' wall time and peak memory (GNU time): the map's
# largest process against the largest rank file, and the reduce against the
# target of 2 s and 500 MB for 512 ranks.
#
#   bench/ranks/run_digest_bench.sh [FEEDPROF] [RANKS] [SHARED_TRACES_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
feedprof=${1:-$here/../../build/tools/feedprof}
ranks=${2:-512}
shared=${3:-$here/../../../shared/traces}
work=$(mktemp -d /tmp/feedprof-digest-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time)"; exit 1; }
jobs=$(nproc)

echo "generating $ranks rank files in $work/raw"
python3 "$here/make_rank_traces.py" "$shared/hta_cuda_graphs/rank0.json.gz" \
  "$work/raw" --ranks "$ranks" --late $((ranks / 3)) --wait-us 2000 \
  --jobs "$jobs"
raw_bytes=$(du -sb "$work/raw" | cut -f1)
largest=$(ls -S "$work"/raw | head -1)

mkdir -p "$work/digests" "$work/mem"
start=$(date +%s.%N)
ls "$work"/raw/*.json.gz | xargs -P "$jobs" -I{} sh -c \
  '/usr/bin/time -f %M -o "$3/$(basename "$1").kb" "$0" digest "$1" \
     -o "$2/$(basename "$1" .json.gz).digest" 2>/dev/null' \
  "$feedprof" {} "$work/digests" "$work/mem"
map_s=$(echo "$(date +%s.%N) - $start" | bc)
map_peak_kb=$(cat "$work"/mem/*.kb | sort -n | tail -1)
digest_bytes=$(du -sb "$work/digests" | cut -f1)
/usr/bin/time -f %M -o "$work/one.kb" "$feedprof" analyze \
  "$work/raw/$largest" > /dev/null 2>&1
one_kb=$(cat "$work/one.kb")

for round in 1 2 3; do
  /usr/bin/time -f "%e %M" -o "$work/reduce.txt" "$feedprof" analyze \
    "$work/digests" --json > "$work/report.json" 2>/dev/null
  read -r reduce_s reduce_kb < "$work/reduce.txt"
  echo "reduce round $round: analyze of $ranks digests ${reduce_s} s," \
       "peak $((reduce_kb / 1024)) MiB"
done
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r['straggler']
print('report: %d ranks, %d collectives matched, waited for %r (%s), '
      'verdict %s (%s)' % (len(r['ranks']), r['collectives']['matched'],
      s['ranks'], s['cause'], r['verdict']['primary'], r['verdict']['basis']))
PY
echo "map: $ranks digests in ${map_s} s on $jobs cores; largest digest" \
     "process peak $((map_peak_kb / 1024)) MiB (analyze of the largest" \
     "rank file alone: $((one_kb / 1024)) MiB)"
echo "size: rank files $((raw_bytes / 1048576)) MiB, digests" \
     "$((digest_bytes / 1024)) KiB ($(echo "scale=2; 100 * $digest_bytes / $raw_bytes" | bc) %)"
