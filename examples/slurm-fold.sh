#!/bin/bash
# slurm-fold.sh: measure an MPI job with fold on a Slurm cluster, then fold it.
#
#   sbatch slurm-fold.sh ./mpi_ring 500          (any MPI program and its arguments)
#
# Every rank runs under foldrun (srun starts foldrun, which execs the program
# with libfold.so preloaded: same pid, so the rank is measured, not srun), and
# writes one trace per rank into the job's directory. When all ranks are done,
# fold reads them together: MPI calls and the computation bursts between them
# are regions, folded across iterations and ranks.
#
# Adjust the #SBATCH lines to your cluster; fold and foldrun must be on PATH
# on the compute nodes (module load fold, or the install prefix's bin/).
#SBATCH --job-name=fold
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --time=00:20:00
#SBATCH --output=fold-%j.out

set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: sbatch $0 PROGRAM [ARGS...]" >&2
	exit 2
fi

job=${SLURM_JOB_ID:-manual}
outdir=${FOLD_JOB_DIR:-fold-$job}
mkdir -p "$outdir"

# %r is the MPI rank, %h the host: one file per rank, no collisions.
# A 1 ms time sampling period gives folding enough samples on short runs;
# FOLD_QUIET keeps one summary line per rank out of the job log.
srun --kill-on-bad-exit=1 foldrun -e time@1ms -q -o "$outdir/trace.%r.%h.trace" "$@"

# Fold all ranks together: a terminal summary in the job log, the HTML report
# and the JSON analysis (profile[] has calls and times per region).
fold "$outdir"/trace.*.trace -o "$outdir/report.html" --json "$outdir/analysis.json"
fold profile "$outdir"/trace.*.trace
echo "report: $outdir/report.html"
