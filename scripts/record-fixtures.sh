#!/bin/bash
# Record test fixtures from real boots and store them under tests/fixtures/,
# to be committed; the tests that read them then need no boot.
# usage: record-fixtures.sh analyser|boots|run
#   analyser: the analyser's traces, recorded in the guest (plan
#     "fixtures"); their answers are known from the scenarios' pinning.
#   boots: finished boots for the judge (tests/13-judge.t), as run-qemu.sh
#     leaves them, without result.json: a smoke pass, a WARNING splat, and
#     the selftest on pristine and on baseline, which fail as the matrix
#     expects. With TREE=6.12: the selftest on idle-wakee (the new work's
#     base, where fast_path_sis_util fails) and on selftest-nested (the new
#     work's last stage), for the cover letter of tests/40-send-email.t,
#     in tests/fixtures/boots-6.12/.
#   run: a short measurement run (two stages, three boots each, two
#     windows of t1, t2 and hp per boot under v5.4-scan) for the metrics
#     table and the report (tests/62-metrics.t): what the boots left
#     and the analyser's trace.txt, without the trace.dat files.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: record-fixtures.sh analyser|boots|run"
out=$BUILD/fixtures
"$TOP/scripts/build-initramfs.sh"

if [ "$TREE_VERSION" = "${TREES%% *}" ]; then
	stages="pristine baseline consistent"
	boots=$TOP/tests/fixtures/boots
else
	[ "$1" = boots ] || die "record-fixtures.sh: TREE=$TREE_VERSION records boots only"
	stages="idle-wakee selftest-nested"
	boots=$TOP/tests/fixtures/boots-$TREE_VERSION
fi
# The run needs only the two stages it measures.
[ "$1" != run ] || stages="baseline consistent"
for stage in $stages; do
	kernel_is_current "$stage" smp || die "stage $stage has no current kernel; run make qemu-test"
done

kernel()
{
	echo "$(kernel_dir "$1" smp)/bzImage"
}

# record NAME STAGE PLAN EXIT: one boot, kept only when the judge gave it
# the exit code the tests are written for.
record()
{
	local dest=$boots/$1 rc=0

	"$TOP/scripts/run-qemu.sh" "$2" "$(kernel "$2")" "$3" "$out/$1" || rc=$?
	[ "$rc" = "$4" ] || die "recording $1: the boot exited $rc, not $4; nothing recorded"
	rm -rf "$dest"
	mkdir -p "$dest/guest"
	cp "$out/$1"/{console.log,qemu.log,provenance} "$dest/"
	[ ! -f "$out/$1/guest/guest-done" ] || cp "$out/$1/guest/guest-done" "$dest/guest/"
}

case $1 in
analyser)
	APPEND="$TRACE_CMDLINE" "$TOP/scripts/run-qemu.sh" pristine "$(kernel pristine)" fixtures "$out/analyser"
	for s in stack spread preempt wait; do
		dest=$TOP/tests/fixtures/$s
		rm -rf "$dest"
		mkdir -p "$dest"
		cp "$out/analyser/guest/$s"/{trace.dat,tasks.txt} "$out/analyser/guest/$s"/*.log "$dest/"
	done
	cp "$out/analyser/provenance" "$TOP/tests/fixtures/provenance"
	;;
boots)
	if [ "$TREE_VERSION" != "${TREES%% *}" ]; then
		record selftest-idle-wakee idle-wakee selftest 1
		record selftest-selftest-nested selftest-nested selftest 0
		info "fixtures: $boots ($(du -sh "$boots" | cut -f1))"
		exit 0
	fi
	record smoke pristine smoke 0
	record warn pristine warn 2
	record selftest-pristine pristine selftest 1
	record selftest-baseline baseline selftest 1
	;;
run)
	rm -rf "$out/run"
	mkdir -p "$out/run"
	# Three boots a stage, two windows of each workload per boot: the
	# smallest run on which the boot-level intervals give verdicts.
	MEASURE_STAGES="baseline consistent" REPEAT=3 WINDOWS=2 ORDER_SEED=1 MEASURE_DURATION=2 \
		WORKLOADS=t1,t2,hp POLICIES=v5.4-scan HACKBENCH_RUNS=2 "$TOP/scripts/measure.sh" "$out/run"
	dest=$TOP/tests/fixtures/run
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$out/run"/{boots.tsv,measure-stages,measure-order} "$dest/"
	while IFS=$'\t' read -r _ boot; do
		rel=${boot#"$out/run/"}
		mkdir -p "$dest/$rel"
		cp "$boot"/{provenance,steal.tsv} "$dest/$rel/"
		(cd "$boot" && find guest -type f ! -name trace.dat ! -name guest-done) |
			while read -r f; do
				mkdir -p "$dest/$rel/${f%/*}"
				cp "$boot/$f" "$dest/$rel/$f"
			done
	done < <(run_boots "$out/run" measure)
	;;
*) die "usage: record-fixtures.sh analyser|boots|run" ;;
esac
info "fixtures: $TOP/tests/fixtures ($(du -sh "$TOP/tests/fixtures" | cut -f1))"
