#!/usr/bin/env bash
# The map of a job's analysis launched with mpirun: each MPI process
# digests the rank traces whose index modulo the world size is its own,
# on the node where they are. Then analyse the digests:
#
#   mpirun -np 64 --map-by node examples/cluster/mpirun_digest.sh \
#     /shared/run42/profiles /shared/run42/digests
#   feedprof analyze /shared/run42/digests
#
# Works with Open MPI (OMPI_COMM_WORLD_*), MPICH and Intel MPI (PMI_*).
set -euo pipefail
traces=${1:?usage: mpirun_digest.sh TRACES_DIR DIGESTS_DIR}
digests=${2:?usage: mpirun_digest.sh TRACES_DIR DIGESTS_DIR}
me=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
size=${OMPI_COMM_WORLD_SIZE:-${PMI_SIZE:-1}}
mkdir -p "$digests"
mapfile -t files < <(find "$traces" -maxdepth 1 -type f \
  \( -name '*.json' -o -name '*.json.gz' -o -name '*.fpt' \
     -o -name '*.sqlite' \) | sort)
for ((i = me; i < ${#files[@]}; i += size)); do
  name=$(basename "${files[$i]}")
  feedprof digest "${files[$i]}" -o "$digests/$name.digest"
done
