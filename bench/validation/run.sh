#!/usr/bin/env bash
# run.sh: fold on real code. Builds public HPC proxy apps from sources the
# user provides (FOLD_PROXY_APPS), runs each under fold as a user would, and
# checks fold's JSON against the app's own timers and against invariants any
# correct folding must satisfy (check.py). Prints one line per check and a
# summary table; the exit status is 0 when every invariant held, 1 when one
# failed, 77 when nothing could run (the reason is printed).
#
# Usage: FOLD_PROXY_APPS=DIR bench/validation/run.sh [--fast] [--apps "A B"]
#                                                    [--modes "M N"] [--keep DIR]
#   DIR holds one entry per app, named miniFE, miniMD, XSBench, CloverLeaf_ref,
#   CoMD, TeaLeaf_ref, miniAMR (or owner+name, e.g. Mantevo+miniFE): an
#   extracted source tree, a git checkout, or a bare git directory (also
#   DIR/APP/repo). See README.md.
#   FOLD_BUILD: fold's build directory (default: ../../build from here);
#   FOLD and FOLDRUN override the two programs.
#   FOLD_VALIDATION_COLD_PROBE=1: miniFE's timed calls also time an empty
#   function before each call, cold and warm (fold_step.h; percall.py).
#   --fast: miniMD only, modes step and cyg, smallest sizes (the ctest subset).
#   Modes: default (plain build, foldrun with its defaults), step (the
#   time-step region, 1 ms sampling), cyg (-finstrument-functions with a
#   filter keeping the kernels), mpi2 (2 ranks), omp2 (2 OpenMP threads;
#   miniAMR's openmp/ version), perf (perf record vs fold's sampled call
#   tree, when perf works), exact (miniFE's leaf kernels at 0.05%).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fast=0
apps="miniFE miniMD XSBench CloverLeaf_ref CoMD TeaLeaf_ref miniAMR"
modes="default step cyg mpi2 omp2 perf exact"
keep=""
while [ $# -gt 0 ]; do
	case $1 in
	--fast) fast=1 apps=miniMD modes="step cyg" ;;
	--apps) apps=$2; shift ;;
	--modes) modes=$2; shift ;;
	--keep) keep=$2; shift ;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done

for app in $apps; do
	case $app in miniFE | miniMD | XSBench | CloverLeaf_ref | CoMD | TeaLeaf_ref | miniAMR) ;;
	*) echo "run.sh: --apps: unknown app '$app' (expected some of: miniFE miniMD XSBench CloverLeaf_ref CoMD TeaLeaf_ref miniAMR)" >&2; exit 2 ;;
	esac
done
for m in $modes; do
	case $m in default | step | cyg | mpi2 | omp2 | perf | exact) ;;
	*) echo "run.sh: --modes: unknown mode '$m' (expected some of: default step cyg mpi2 omp2 perf exact)" >&2; exit 2 ;;
	esac
done

if [ -z "${FOLD_PROXY_APPS:-}" ]; then
	echo "SKIP: FOLD_PROXY_APPS is not set; it names a directory holding the proxy apps' sources" \
	     "(miniFE miniMD XSBench CloverLeaf_ref CoMD TeaLeaf_ref miniAMR; how to get them: bench/validation/README.md)"
	exit 77
fi
if [ ! -d "$FOLD_PROXY_APPS" ]; then
	echo "SKIP: FOLD_PROXY_APPS=$FOLD_PROXY_APPS is not a directory"
	exit 77
fi
build=${FOLD_BUILD:-$here/../../build}
FOLD=${FOLD:-$build/src/cli/fold}
FOLDRUN=${FOLDRUN:-$build/src/runtime/foldrun}
for p in "$FOLD" "$FOLDRUN"; do
	[ -x "$p" ] || { echo "SKIP: $p is not built (set FOLD_BUILD, or FOLD and FOLDRUN)"; exit 77; }
done
for t in mpicc mpicxx mpif90 mpirun python3; do
	command -v $t >/dev/null || { echo "SKIP: $t is not installed (scripts/install-deps.sh)"; exit 77; }
done
# The ctest subset judges instance durations (coverage, outliers), which
# other jobs' load stretches: skip with the measured reason rather than
# report their preemption as fold's error (FOLD_VALIDATION_ANY_LOAD=1 runs
# anyway). The bench (without --fast) always runs and prints the load.
if [ $fast = 1 ] && [ "${FOLD_VALIDATION_ANY_LOAD:-0}" != 1 ]; then
	ncpu=$(nproc)
	load=$(cut -d' ' -f1 /proc/loadavg)
	if awk -v l="$load" -v n="$ncpu" 'BEGIN { exit !(l > 2 * n) }'; then
		echo "SKIP: load average $load on $ncpu cores (other jobs): instance durations would measure them, not fold" \
		     "(FOLD_VALIDATION_ANY_LOAD=1 runs anyway)"
		exit 77
	fi
fi
if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
export OMPI_MCA_rmaps_base_oversubscribe=1 FOLD_QUIET=1
results=$work/results.tsv
: >"$results"
nfail=0 nrun=0
log() { printf '%s\n' "$*"; }

# src APP DEST: extract APP's sources into DEST; fails with a reason.
src() {
	local app=$1 dest=$2 d="" cand
	for cand in "$app" "$app.git" Mantevo+$app ANL-CESAR+$app UK-MAC+$app ECP-copa+$app; do
		[ -e "$FOLD_PROXY_APPS/$cand" ] && { d=$FOLD_PROXY_APPS/$cand; break; }
	done
	[ -n "$d" ] || { echo "no $app (nor owner+$app) in $FOLD_PROXY_APPS"; return 1; }
	[ -d "$d/repo" ] && d=$d/repo
	mkdir -p "$dest"
	if [ -f "$d/HEAD" ] && [ -d "$d/objects" ]; then # a bare git directory
		git --git-dir="$d" archive HEAD | tar -x -C "$dest" || { echo "git archive of $d failed"; return 1; }
	else
		(cd "$d" && tar --exclude=.git -cf - .) | tar -x -C "$dest" || { echo "copying $d failed"; return 1; }
	fi
}

# step_objects: the time-step region helper, compiled once.
step_objects() {
	[ "$work/fold_step.o" -nt "$here/fold_step.c" ] && [ "$work/fold_step.o" -nt "$here/fold_step.h" ] ||
		mpicc -O2 -c "$here/fold_step.c" -o "$work/fold_step.o"
}

# stall_probe: how often the machine stops a program where nothing of it
# runs (stalls.c), compiled once; run for half a second before each app.
stall_probe() {
	[ "$work/stalls" -nt "$here/../../tests/tools/stalls.c" ] || cc -O2 -o "$work/stalls" "$here/../../tests/tools/stalls.c" || return 1
	"$work/stalls" 0.5
}

# Each build_APP VARIANT DIR builds into DIR and prints the executable's path.
# VARIANT plain: the app as its authors build it (-O3 -g). instr: plus the
# time-step region (inserted into the scratch copy by sed/perl; the edit
# must apply, or the build fails loudly) and -finstrument-functions. omp:
# instr of an app whose OpenMP version is a directory of its own (variant).
build_miniMD() {
	local v=$1 d=$2 flags="-O3 -g -fopenmp -DMPICH_IGNORE_CXX_SEEK -DDEVICE=1 -DNOCHUNK" extra=""
	src miniMD "$d/tree" >&2 || return 1
	cd "$d/tree/ref" || return 1
	if [ "$v" = instr ]; then
		step_objects
		perl -0pi -e 's/(for\(n = 0; n < ntimes; n\+\+\) \{)/$1 fold_step_enter();/ or die "step start not found\n";
		              s/(\n *)(if\(thermo.nstat\) thermo.compute\(n \+ 1)/$1fold_step_exit(); $2/ or die "step end not found\n"' \
			integrate.cpp >&2 || return 1
		flags="$flags -finstrument-functions -include $here/fold_step.h"
		extra=$work/fold_step.o
	fi
	# as miniMD's own Makefile: preprocess first (its OpenMP macros expand
	# to #pragma, which only a second pass compiles)
	ls *.cpp | xargs -P 2 -I{} sh -c "mpicxx $flags -E {} >{}.i.cpp && mpicxx $flags -c {}.i.cpp -o {}.o" >&2 || return 1
	mpicxx $flags *.o $extra -o miniMD >&2 || return 1
	echo "$d/tree/ref/miniMD"
}
build_miniFE() {
	local v=$1 d=$2 flags="-O3 -g" libs=""
	src miniFE "$d/tree" >&2 || return 1
	cd "$d/tree/ref/src" || return 1
	if [ "$v" = instr ]; then
		step_objects
		perl -0pi -e 's/(for\(LocalOrdinalType k=1; k <= max_iter && normr > tolerance; \+\+k\) \{)/$1 fold_step_enter();/ or die "step start not found\n";
		              s/(\n *num_iters = k;)/$1 fold_step_exit();/ or die "step end not found\n"' \
			cg_solve.hpp >&2 || return 1
		# and a TSC from cg_solve's total timer's start to its loop
		# (FOLD_PRELOOP_*, fold_step.h): the part of "Total CG Time" no step
		# region holds (its vectors' first touches, the kernels before the
		# loop: 2.5-6% of it at 40^3 on the test VM, with a first matvec of
		# 1.3-9 ms), so that the step mode compares like with like
		perl -0pi -e 's/(timer_type total_time = mytimer\(\);)/$1 FOLD_PRELOOP_START();/ or die "total timer not found\n";
		              s/(\n *)(for\(LocalOrdinalType k=1; k <= max_iter)/$1FOLD_PRELOOP_END();$1$2/ or die "loop not found\n"' \
			cg_solve.hpp >&2 || return 1
		# and a TSC bracket right inside cg_solve's TICK/TOCK (fold_step.h):
		# the reference the 0.05% check needs, which the app's gettimeofday
		# timer is not (its own cold call is 0.06-0.07% of a 96^3 WAXPY)
		perl -0pi -e 's/\bTICK\(\);/FOLD_TICK();/g or die "TICK not found\n";
		              s/\bTOCK\((t\w+)\);/FOLD_TOCK($1);/g or die "TOCK not found\n"' \
			cg_solve.hpp >&2 || return 1
		# and each timed call of the kernels in a TSC right around it
		# (FOLD_CALL): TICK/TOCK also hold cg_solve's own code between the
		# two WAXPYs they time together, which is no function's time
		perl -0pi -e '$n = 0;
		              s{FOLD_TICK\(\);(.*?)FOLD_TOCK\((t\w+)\);}{
		                my ($body, $t) = ($1, $2);
		                $n += $body =~ s/(\b(?:\w+ = )?(?:waxpby|dot|matvec)\([^;]*\);)/FOLD_CALL($t, $1)/g;
		                "FOLD_TICK();${body}FOLD_TOCK($t);" }gse;
		              $n >= 8 or die "timed calls not found ($n)\n"' cg_solve.hpp >&2 || return 1
		# the app's own timer (mytimer, in the TICK/TOCK the kernels are
		# compared with) without hooks: filtered at run time, its enter and
		# exit hooks still ran inside the timed interval, a cold hash probe
		# each after a streaming kernel, which no trace can show. And the
		# C++ library's headers out of the instrumentation, as fold's
		# warning about its own cost tells a user to (docs/regions.md,
		# "Filtering"): their inlined code made fold's hooks 75% of the
		# run's CPU time, and its filtered hooks around the kernels slowed
		# the way into and out of theirs (docs/validation.md, "Short leaves")
		flags="$flags -finstrument-functions -finstrument-functions-exclude-function-list=mytimer"
		flags="$flags -finstrument-functions-exclude-file-list=/usr/include -include $here/fold_step.h"
		# the floor of what a hook inside a function can see of its call
		# (fold_step.h, FOLD_COLD_PROBE; percall.py shows it)
		[ "${FOLD_VALIDATION_COLD_PROBE:-0}" = 1 ] && flags="$flags -DFOLD_COLD_PROBE"
		libs=$work/fold_step.o
	fi
	make -j2 CXX=mpicxx CC=mpicc CFLAGS="$flags" LIBS="$libs" >make.log 2>&1 || { tail -20 make.log >&2; return 1; }
	echo "$d/tree/ref/src/miniFE.x"
}
build_XSBench() {
	local v=$1 d=$2 flags="-std=gnu99 -O3 -g -fopenmp -DOPENMP -DMPI" extra=""
	src XSBench "$d/tree" >&2 || return 1
	cd "$d/tree/openmp-threading" || return 1
	if [ "$v" = instr ]; then
		step_objects
		# the time step: one particle history (history-based method)
		perl -0pi -e 's/(\n\t\tfor\( int i = 0; i < in.lookups; i\+\+ \))/\n\t\tfold_step_enter();$1/ or die "step start not found\n";
		              s/(mat      = pick_mat\(&seed\); *\n\t\t\})/$1 fold_step_exit();/ or die "step end not found\n"' \
			Simulation.c >&2 || return 1
		flags="$flags -finstrument-functions -include $here/fold_step.h"
		extra=$work/fold_step.o
	fi
	mpicc $flags *.c $extra -lm -o XSBench >&2 || return 1
	echo "$d/tree/openmp-threading/XSBench"
}
build_CloverLeaf_ref() {
	local v=$1 d=$2 flags="-O3 -g"
	src CloverLeaf_ref "$d/tree" >&2 || return 1
	cd "$d/tree" || return 1
	if [ "$v" = instr ]; then
		step_objects
		perl -0pi -e 's/(\n *)(CALL timestep\(\))/$1CALL fold_step_enter()$1$2/ or die "step start not found\n";
		              s/(\n *)(CALL reset_field\(\))/$1$2$1CALL fold_step_exit()/ or die "step end not found\n"' \
			hydro.f90 >&2 || return 1
		flags="$flags -finstrument-functions $work/fold_step.o"
	fi
	make COMPILER=GNU FLAGS_GNU="$flags" CFLAGS_GNU="-O3 -g" >make.log 2>&1 || { tail -20 make.log >&2; return 1; }
	echo "$d/tree/clover_leaf"
}
build_CoMD() {
	# src-mpi as its README builds it (Makefile.vanilla: mpicc -g -O5);
	# it has no OpenMP (src-openmp is a separate code without MPI)
	local v=$1 d=$2 opt="-g -O5" lib=""
	src CoMD "$d/tree" >&2 || return 1
	cd "$d/tree/src-mpi" || return 1
	if [ "$v" = instr ]; then
		step_objects
		# the time step: one iteration of timestep()'s loop, from the first
		# velocity half step to the second (the app's timers time its five
		# calls; "timestep" times timestep(), its nSteps iterations and the
		# kineticEnergy after them)
		perl -0pi -e 's/(for \(int ii=0; ii<nSteps; \+\+ii\)\s*\{)/$1 fold_step_enter();/ or die "step start not found\n";
		              s/(stopTimer\(velocityTimer\);)(\s*\}\s*kineticEnergy\(s\);)/$1 fold_step_exit();$2/ or die "step end not found\n"' \
			timestep.c >&2 || return 1
		opt="$opt -finstrument-functions -include $here/fold_step.h"
		lib=$work/fold_step.o
	fi
	cp Makefile.vanilla Makefile || return 1
	make -j2 OPTFLAGS="$opt" OTHER_LIB="$lib" >make.log 2>&1 || { tail -20 make.log >&2; return 1; }
	echo "$d/tree/bin/CoMD-mpi"
}
build_miniAMR() {
	# ref/ (C, MPI) as its Makefile builds it (mpicc -O3, here with -g);
	# VARIANT omp: its openmp/ directory, the same code with OpenMP loops in
	# stencil_calc, comm and check_sum (mpicc -O3 -fopenmp), for omp2
	local v=$1 d=$2 flags="-O3 -g" dir=ref libs="-lm"
	src miniAMR "$d/tree" >&2 || return 1
	[ "$v" = omp ] && dir=openmp flags="$flags -fopenmp" libs="$libs -lgomp"
	cd "$d/tree/$dir" || return 1
	if [ "$v" != plain ]; then
		step_objects
		# the time step: one iteration of driver()'s loop, its whole body
		# (the stages' comm, stencil_driver and check_sum calls, move,
		# refine every refine_freq steps, and the reduction of the app's
		# per-step timers every refine_freq steps), so that the app's
		# "Total time" is the step regions and the initial refine before
		# the loop
		perl -0pi -e 's/(for \(sim_time = 0\.0,[^{]*\{)/$1 fold_step_enter();/ or die "step start not found\n";
		              s/(\n *last = ts;\n *\})(\n *\}\n\s*end_time = sim_time;)/$1\n      fold_step_exit();$2/ or die "step end not found\n"' \
			driver.c >&2 || return 1
		flags="$flags -finstrument-functions -include $here/fold_step.h"
		libs="$libs $work/fold_step.o"
	fi
	make -j2 CFLAGS="$flags" LDLIBS="$libs" >make.log 2>&1 || { tail -20 make.log >&2; return 1; }
	echo "$d/tree/$dir/miniAMR.x"
}
build_TeaLeaf_ref() {
	# as its Makefile builds it with COMPILER=GNU (MPI + OpenMP); gfortran
	# 12 rejects global_mpi.f90's MPI calls without -fallow-argument-mismatch
	local v=$1 d=$2 opt="-g -fallow-argument-mismatch" lib=""
	src TeaLeaf_ref "$d/tree" >&2 || return 1
	cd "$d/tree" || return 1
	if [ "$v" = instr ]; then
		step_objects
		# the time step: diffuse's loop body from its step clock's start
		# (step_time = timer()) to the last code before the boss's report,
		# which reads the step clock right after it ("Step time per cell")
		perl -0pi -e 's/(\n *)(step_time = timer\(\))/$1$2$1CALL fold_step_enter()/ or die "step start not found\n";
		              s/(\n *)(IF\(step\.EQ\.2\) second_step=\(timer\(\) - step_time\))/$1$2$1CALL fold_step_exit()/ or die "step end not found\n"' \
			diffuse.f90 >&2 || return 1
		opt="$opt -finstrument-functions"
		lib=$work/fold_step.o
	fi
	make -j2 COMPILER=GNU OPTIONS="$opt" C_OPTIONS="-g" LDLIBS="$lib" >make.log 2>&1 || { tail -20 make.log >&2; return 1; }
	echo "$d/tree/tea_leaf"
}

# Problem sizes: small (whole suite in minutes on 2 cores), enough time
# steps to fold. run_APP RUNDIR LAUNCH... runs the app in RUNDIR.
size() { if [ $fast = 1 ]; then echo "$1"; else echo "$2"; fi; }
# run_APP DIR COMMAND...: one run of APP in DIR; $threads (the caller's,
# bash's dynamic scope) is its OpenMP threads, given on the command line
# too where the app takes it there (OMP_NUM_THREADS is set only in the
# command's environment, not here)
run_miniMD() {
	local dir=$1; shift
	(cd "$dir" && cp "$app_dir/in.lj.miniMD" . && "$@" -i in.lj.miniMD -s "$(size 12 16)" -n "$(size 100 200)" -t "${threads:-1}" >app.out 2>&1)
}
run_miniFE() {
	local dir=$1; shift
	local n; n=$(size 24 40)
	# exact: kernels of about 300 us (WAXPY, DOT), the leaf functions the
	# issue's 0.05% target was measured on; at 40 they take 25 us, where the
	# app's gettimeofday timers (1 us resolution, 51 ns of their own per
	# interval) cannot resolve 0.05% (docs/validation.md)
	[ "${mode:-}" = exact ] && n=$(size 64 96)
	(cd "$dir" && "$@" -nx $n -ny $n -nz $n >app.out 2>&1)
}
run_XSBench() {
	local dir=$1; shift
	# XSBench's checksum is valid only at its default sizes and it exits 1
	# on an "INVALID CHECKSUM": a completed run is one that printed its results
	(cd "$dir" && "$@" -s small -m history -p "$(size 5000 20000)" -t "${threads:-1}" >app.out 2>&1)
	grep -q '^Verification checksum' "$dir/app.out"
}
run_CloverLeaf_ref() {
	local dir=$1; shift
	local n; n=$(size 64 128)
	cat >"$dir/clover.in" <<EOF
*clover
 state 1 density=0.2 energy 1.0
 state 2 density=1.0 energy=2.5 geometry=rectangle xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0
 x_cells=$n
 y_cells=$n
 xmin=0.0
 ymin=0.0
 xmax=10.0
 ymax=10.0
 initial_timestep=0.04
 timestep_rise=1.5
 max_timestep=0.04
 end_step=$(size 100 200)
 test_problem 2
 profiler_on
*endclover
EOF
	(cd "$dir" && "$@" >app.out 2>&1)
}

run_CoMD() {
	local dir=$1; shift
	# the Lennard-Jones default (no potential files); 4 n^3 atoms, a rank
	# grid of $np (the caller's) x 1 x 1; -n: timestep() makes 10 steps a call
	local n; n=$(size 8 10)
	(cd "$dir" && "$@" -x $n -y $n -z $n -N "$(size 50 100)" -n 10 -i "${np:-1}" -j 1 -k 1 >app.out 2>&1)
}
run_miniAMR() {
	local dir=$1; shift
	# an expanding sphere's surface refines the mesh 3 levels deep: the
	# step's work grows in jumps (steps 1-25 120 blocks, 26-40 288,
	# 41-60 456 on one rank), three populations of one region, and every
	# 5th step refines; --npx: the rank grid of $np (the caller's) x 1 x 1.
	# The report (--report_perf 4: on stdout) ends with its "Summary:"
	# line; a checksum that drifts ends the loop early with "difference too
	# large" and no failing exit status
	(cd "$dir" && "$@" --num_refine 3 --max_blocks 800 --nx 8 --ny 8 --nz 8 --num_objects 1 \
		--object 2 0 0.5 0.5 0.5 0 0 0 0.05 0.05 0.05 0.008 0.008 0.008 --num_tsteps 60 --stages_per_ts 5 \
		--checksum_freq 4 --num_vars "$(size 4 10)" --npx "${np:-1}" --report_perf 4 >app.out 2>&1) || return 1
	grep -q '^Summary: ' "$dir/app.out" && ! grep -q 'difference too large' "$dir/app.out"
}
run_TeaLeaf_ref() {
	local dir=$1; shift
	local n; n=$(size 64 128)
	# the CG solver; profiler_on for its timer table, summary every 5 steps
	cat >"$dir/tea.in" <<EOF
*tea
state 1 density=100.0 energy=0.0001
state 2 density=0.1 energy=25.0 geometry=rectangle xmin=0.0 xmax=1.0 ymin=1.0 ymax=2.0
state 3 density=0.1 energy=0.1 geometry=rectangle xmin=1.0 xmax=6.0 ymin=1.0 ymax=2.0
state 4 density=0.1 energy=0.1 geometry=rectangle xmin=5.0 xmax=6.0 ymin=1.0 ymax=8.0
state 5 density=0.1 energy=0.1 geometry=rectangle xmin=5.0 xmax=10.0 ymin=7.0 ymax=8.0
x_cells=$n
y_cells=$n
xmin=0.0
ymin=0.0
xmax=10.0
ymax=10.0
initial_timestep=0.004
end_step=$(size 10 20)
tl_max_iters=10000
tl_use_cg
tl_eps=1.0e-15
summary_frequency=5
profiler_on
*endtea
EOF
	(cd "$dir" && "$@" >app.out 2>&1)
}

# Filters for -finstrument-functions: only the kernels the app times itself
# (and their drivers), so the exact profile can be compared with its timers.
filter_for() {
	case $1 in
	miniMD) printf 'exclude function *\ninclude function ForceLJ::compute*\ninclude function Neighbor::build*\ninclude function Comm::communicate*\n' ;;
	miniFE) printf 'exclude function *\ninclude function *matvec_std*operator()*\ninclude function *miniFE::dot<*\ninclude function *miniFE::waxpby<*\ninclude function *miniFE::breakdown<*\n' ;;
	XSBench) printf 'exclude function *\ninclude function calculate_macro_xs\n' ;;
	CloverLeaf_ref) printf 'exclude function *\ninclude function pdv\ninclude function pdv_kernel\ninclude function advection\ninclude function accelerate\ninclude function field_summary\ninclude function clover_check_error\n' ;;
	CoMD) printf 'exclude function *\ninclude function computeForce\ninclude function ljForce\ninclude function redistributeAtoms\ninclude function kineticEnergy\n' ;;
	miniAMR) printf 'exclude function *\ninclude function stencil_driver\ninclude function comm\ninclude function check_sum\ninclude function refine\ninclude function move\n' ;;
	TeaLeaf_ref) printf 'exclude function *\ninclude function tea_leaf\ninclude function tea_leaf_cg_calc_w\ninclude function tea_leaf_cg_calc_ur\ninclude function tea_leaf_cg_calc_p\ninclude function tea_allsum\ninclude function tea_allsum2\n' ;;
	esac
}

# variant APP MODE: the build a mode runs. omp2 runs miniAMR's openmp/
# version, the same code as its ref/ with OpenMP loops, where the other
# apps' one build has both.
variant() {
	case $2 in
	default | perf) echo plain ;;
	omp2) if [ "$1" = miniAMR ]; then echo omp; else echo instr; fi ;;
	*) echo instr ;;
	esac
}

# one APP MODE: run and check one configuration; appends to $results.
one() {
	local app=$1 mode=$2 exe variant np=1 threads=1 sample=time@1ms
	variant=$(variant "$app" "$mode")
	case $mode in
	default) sample="" ;;
	# every 1 ms of thread CPU time, as perf's cpu-clock (a cputime@ timer
	# only fires once per scheduler tick)
	perf) sample=perf::TASK-CLOCK@1000000 ;;
	mpi2) np=2 ;;
	omp2)
		if [ "$app" = CoMD ]; then
			log "== $app omp2: not run (CoMD's src-mpi has no OpenMP; its src-openmp is another code, without MPI)"
			return
		fi
		threads=2
		;;
	exact)
		if [ "$app" != miniFE ]; then
			log "== $app exact: not run (only miniFE times leaf kernels right around their calls)"
			return
		fi
		;;
	esac
	exe=${built[$app.$variant]:-}
	if [ -z "$exe" ]; then
		log "== $app $mode: SKIP ($app $variant build failed or missing)"
		printf '%s\t%s\tSKIP\tbuild failed\n' "$app" "$mode" >>"$results"
		return
	fi
	app_dir=$(dirname "$exe")
	local dir=$work/run/$app.$mode
	rm -rf "$dir"
	mkdir -p "$dir"
	printf '%s\n' "$(filter_for "$app")" >"$dir/filter"
	[ "$mode" = step ] && printf 'exclude function *\n' >"$dir/filter"
	local launch=() env=(env OMP_NUM_THREADS=$threads FOLD_OUTPUT=fold.%r.%p.trace)
	[ "$variant" != plain ] && env+=(FOLD_FILTER="$dir/filter" FOLD_THROTTLE=off)
	local fr=("$FOLDRUN")
	[ -n "$sample" ] && fr+=(-e "$sample")
	if [ "$mode" = perf ]; then
		if ! perf record -q -o "$dir/perf.data" -F 997 -g -- true >/dev/null 2>&1; then
			log "== $app perf: SKIP (perf record does not work here)"
			printf '%s\t%s\tSKIP\tperf record does not work here\n' "$app" "$mode" >>"$results"
			return
		fi
		OMP_NUM_THREADS=1 run_$app "$dir" perf record -q -o "$dir/perf.data" -F 997 -g -- "$exe"
		(cd "$dir" && mv app.out app.perf.out && perf report -i perf.data --no-children -g none --sort symbol \
			--stdio -q 2>/dev/null >perf.txt)
		launch=("${env[@]}" "${fr[@]}")
	elif [ $np -gt 1 ]; then
		launch=("${env[@]}" $MPIRUN -np $np -x FOLD_FILTER -x FOLD_THROTTLE -x FOLD_QUIET "${fr[@]}")
	else
		launch=("${env[@]}" "${fr[@]}")
	fi
	# the machine's own stops of a program (a VM's, unseen by the guest):
	# check.py quotes them when a call's entry or return held one
	stall_probe >"$dir/stalls.txt" 2>&1 || echo "stalls unknown" >"$dir/stalls.txt"
	local t0=$SECONDS
	# How much CPU the app and the machine used while it ran
	# (cpu_share.txt): the app's timers hold the gaps between fold's hooks,
	# and other jobs' time lands there on a shared machine; check.py then
	# shows the timer checks that fail unjudged.
	launch=(python3 "$here/../../tests/tools/cpu_share.py" --min-share 0 --threads $((np * threads))
		--patience 1e9 --report "$dir/cpu_share.txt" -- "${launch[@]}")
	local ok=1
	run_$app "$dir" "${launch[@]}" "$exe" || ok=0
	echo "cpus=$(nproc) needs=$((np * threads))" >>"$dir/cpu_share.txt"
	if [ $ok = 0 ]; then
		log "== $app $mode: FAIL (the app failed under fold; $dir/app.out)"
		tail -5 "$dir/app.out"
		printf '%s\t%s\tFAIL\tapp failed under fold\n' "$app" "$mode" >>"$results"
		nfail=$((nfail + 1))
		return
	fi
	local traces=("$dir"/fold.*.trace)
	if ! "$FOLD" -q "${traces[@]}" --json "$dir/fold.json" >"$dir/fold.txt" 2>"$dir/fold.err"; then
		log "== $app $mode: FAIL (fold failed: $(head -1 "$dir/fold.err"))"
		printf '%s\t%s\tFAIL\tfold failed\n' "$app" "$mode" >>"$results"
		nfail=$((nfail + 1))
		return
	fi
	[ $fast = 1 ] || "$FOLD" -q "${traces[@]}" -o "$dir/report.html" 2>/dev/null
	log "== $app $mode ($((SECONDS - t0)) s, $np rank(s) x $threads thread(s), sampling ${sample:-default}, load $(cut -d' ' -f1-3 /proc/loadavg), $(cut -d';' -f1 "$dir/stalls.txt")): $dir"
	FOLD="$FOLD" python3 "$here/check.py" --app "$app" --mode "$mode" --dir "$dir" --results "$results"
	local rc=$?
	nrun=$((nrun + 1))
	[ $rc = 0 ] || nfail=$((nfail + 1))
}

declare -A built
for app in $apps; do
	for variant in plain instr omp; do
		need=0
		for m in $modes; do
			[ "$(variant "$app" "$m")" = $variant ] && need=1
		done
		[ $need = 1 ] || continue
		d=$work/build/$app.$variant
		if [ -x "${built[$app.$variant]:-/nonexistent}" ]; then continue; fi
		rm -rf "$d"
		mkdir -p "$d"
		t0=$SECONDS
		if exe=$(build_$app $variant "$d" 2>"$d.log"); then
			built[$app.$variant]=$exe
			log "built $app ($variant) in $((SECONDS - t0)) s"
		else
			log "SKIP $app ($variant): build failed: $(tail -1 "$d.log")"
		fi
	done
	for m in $modes; do one "$app" "$m"; done
done

if [ $nrun = 0 ]; then
	echo "SKIP: no configuration could run (see the lines above)"
	exit 77
fi
echo
python3 "$here/check.py" --summary "$results"
echo "reproduce: FOLD_PROXY_APPS=$FOLD_PROXY_APPS FOLD_BUILD=$build $0 --apps \"$apps\" --modes \"$modes\"$([ $fast = 1 ] && echo ' (the --fast sizes)')"
[ $nfail = 0 ]
