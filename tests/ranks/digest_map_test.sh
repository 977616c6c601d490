#!/usr/bin/env bash
# The map and the reduce of a job's analysis at cluster scale, as a
# scheduler would run them (docs/cluster.md): four rank files made from a
# shared Kineto trace (rank 2 late at every collective), each digested by
# its own `feedprof digest` under `xargs -P 2`, then `feedprof analyze` of
# the digests against `feedprof analyze` of the rank files themselves: the
# same ranks table, collectives and rank waited for; each digest at most
# 5 % of its rank file.
#
#   digest_map_test.sh FEEDPROF SHARED_TRACES_DIR WORK_DIR GENERATOR
set -euo pipefail
feedprof=$1 shared=$2 work=$3 generator=$4
source_trace=$shared/hta_cuda_graphs/rank0.json.gz
if [[ ! -f $source_trace ]]; then
  echo "skipped: shared trace $source_trace not found"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/digests"
trap 'rm -rf "$work"' EXIT
python3 "$generator" "$source_trace" "$work/raw" --ranks 4 --late 2 \
  --wait-us 2000 --jobs 2
ls "$work"/raw/*.json.gz | xargs -P 2 -I{} sh -c \
  '"$0" digest "$1" -o "$2/$(basename "$1" .json.gz).digest" 2>/dev/null' \
  "$feedprof" {} "$work/digests"
"$feedprof" analyze "$work/raw" --json > "$work/raw.json" 2>/dev/null
"$feedprof" analyze "$work/digests" --json > "$work/digests.json" 2>/dev/null
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
raw = json.load(open(os.path.join(work, 'raw.json')))
dig = json.load(open(os.path.join(work, 'digests.json')))
failures = []
def same(what, a, b):
    if a != b:
        failures.append('%s: from the traces %r, from the digests %r' % (what, a, b))
if dig['source']['rank_digests'] != 4:
    failures.append('rank_digests %r, not 4' % dig['source']['rank_digests'])
keys = ['rank', 'span_ns', 'busy_ns', 'median_step_ns', 'communication_ns',
        'collectives', 'collective_wait_ns', 'arrived_last', 'caused_wait_ns',
        'straggler', 'slowest', 'verdict']
same('ranks', len(raw['ranks']), len(dig['ranks']))
for a, b in zip(raw['ranks'], dig['ranks']):
    for k in keys:
        same('rank %s %s' % (a['rank'], k), a[k], b[k])
same('collectives', raw['collectives'], dig['collectives'])
for k in ['kind', 'ranks', 'caused_wait_ns', 'cause', 'late_by_ns',
          'explanation']:
    same('straggler ' + k, raw['straggler'][k], dig['straggler'][k])
same('verdict basis', raw['verdict']['basis'], dig['verdict']['basis'])
if raw['straggler']['ranks'] != [2]:
    failures.append('the rank waited for is %r, not [2]' % raw['straggler']['ranks'])
for name in sorted(os.listdir(os.path.join(work, 'raw'))):
    trace = os.path.getsize(os.path.join(work, 'raw', name))
    digest = os.path.getsize(os.path.join(
        work, 'digests', name[:-len('.json.gz')] + '.digest'))
    if digest > trace * 0.05:
        failures.append('%s: digest %d bytes, over 5 %% of %d' % (name, digest, trace))
for f in failures:
    print('FAIL', f)
print('digests: %d failures; waited for %r, caused wait %d ns' % (
    len(failures), dig['straggler']['ranks'], dig['straggler']['caused_wait_ns']))
sys.exit(1 if failures else 0)
PY
