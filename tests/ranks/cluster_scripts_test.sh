#!/usr/bin/env bash
# The example launchers of docs/cluster.md, run here as their scheduler
# would: the Slurm array script once per task id, the mpirun script once
# per MPI rank (Open MPI's variables), the Kubernetes Indexed Job's script
# once per completion index. Each must leave one digest per rank trace,
# and the three digest directories must give the same report.
#
#   cluster_scripts_test.sh FEEDPROF SHARED_TRACES_DIR WORK_DIR GENERATOR EXAMPLES
set -euo pipefail
feedprof=$1 shared=$2 work=$3 generator=$4 examples=$5
source_trace=$shared/hta_cuda_graphs/rank0.json.gz
if [[ ! -f $source_trace ]]; then
  echo "skipped: shared trace $source_trace not found"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/bin"
trap 'rm -rf "$work"' EXIT
ln -s "$feedprof" "$work/bin/feedprof"
export PATH=$work/bin:$PATH
python3 "$generator" "$source_trace" "$work/profiles/run" --ranks 3 \
  --late 1 --wait-us 2000 --jobs 2

for task in 0 1 2; do
  SLURM_ARRAY_TASK_ID=$task TRACES=$work/profiles/run \
    DIGESTS=$work/slurm bash "$examples/slurm_digest.sbatch" 2>/dev/null
done
for me in 0 1; do
  OMPI_COMM_WORLD_RANK=$me OMPI_COMM_WORLD_SIZE=2 \
    bash "$examples/mpirun_digest.sh" "$work/profiles/run" "$work/mpirun" \
    2>/dev/null
done
# The Job's container script, its volume at $work/profiles.
sed -n '/- |/,/resources:/p' "$examples/k8s_digest_job.yaml" |
  sed '1d;$d' | sed 's/^              //' |
  sed "s|/profiles|$work/profiles|g" > "$work/k8s.sh"
for index in 0 1 2; do
  JOB_COMPLETION_INDEX=$index bash "$work/k8s.sh" 2>/dev/null
done

status=0
for dir in slurm mpirun profiles/digests; do
  count=$(ls "$work/$dir"/*.digest | wc -l)
  if [[ $count != 3 ]]; then
    echo "FAIL $dir: $count digests, not 3"
    status=1
  fi
  feedprof analyze "$work/$dir" --json 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps([r["ranks"], r["collectives"], r["straggler"]["ranks"]]))' \
    > "$work/$(basename "$dir").out"
done
if ! cmp -s "$work/slurm.out" "$work/mpirun.out" ||
   ! cmp -s "$work/slurm.out" "$work/digests.out"; then
  echo "FAIL the three launchers' digests give different reports"
  status=1
fi
grep -q '\[1\]\]$' "$work/slurm.out" ||
  { echo "FAIL rank 1 is not the rank waited for"; status=1; }
[[ $status == 0 ]] && echo "cluster scripts: slurm, mpirun and k8s digests agree"
exit $status
