#!/bin/bash
# make oops-repro: boot the reproducer of docs/oops-6.12-pick-eevdf.md
# (PLAN=oops-fork, initramfs/repro/eevdf-fork-oops.c) OOPS_BOOTS times on
# each STAGE's OOPS_FLAVOUR kernel and count the boots that oopsed.
# env: STAGE (default packaged: the tarball as shipped, without the BASE
#      fix that makes every stage of series-6.12 immune), OOPS_FLAVOUR,
#      OOPS_BOOTS, OOPS_DURATION, KDIR, TREE (scripts/variables)
# Output: results/RUN/STAGE/oops-fork-N/ per boot (run-qemu.sh's), the
# run's boots.tsv, and oops.tsv, a line per boot:
#   tree  stage  boot  verdict  splat  figures
# tree is the packaged tarball or the KDIR the kernel was built from,
# verdict the judge's (pass, splat for an oops, fail, timeout,
# infrastructure), splat the first line of the oops ("-" if none), and
# figures the reproducer's own line ("-" if it never printed it).
# It exits 0 when every boot either survived with the reproducer's
# figures or oopsed (the oops is the finding, not an error), and 4 when a
# boot did neither.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

check_settings
stages=$(setting STAGE)
[ -n "$stages" ] || stages=packaged
flavour=$(setting OOPS_FLAVOUR)
boots=$(setting OOPS_BOOTS)
duration=$(setting OOPS_DURATION)
plan=oops-fork
plan_smp "$plan" >/dev/null
# Boot and shutdown take 20-75 s under TCG (the kasan flavour the most);
# the reproducer's own time is on top of that.
timeout=$((duration + 300))

take_lock
"$TOP/scripts/deps.sh" run
"$TOP/scripts/prepare-tree.sh"
run=$(date -u +%Y%m%d-%H%M%S)-oops-$$
rundir=$RESULTS/$run
begin_run "$rundir"
table=$rundir/oops.tsv
printf 'tree\tstage\tboot\tverdict\tsplat\tfigures\n' >"$table"
tree=$(cat "$KDIR/.sched-idle-base" 2>/dev/null || echo "$KDIR")

for stage in $stages; do
	info "stage $stage: $flavour kernel"
	"$TOP/scripts/build-stage.sh" "$stage" "$flavour" >/dev/null
done
"$TOP/scripts/build-initramfs.sh"

worst=0
for stage in $stages; do
	kernel=$(kernel_dir "$stage" "$flavour")/bzImage
	oopsed=0
	for i in $(seq 1 "$boots"); do
		out=$rundir/$stage/$plan-$i
		rc=0
		APPEND="sched_idle.duration=$duration" "$TOP/scripts/run-qemu.sh" \
			--timeout "$timeout" "$stage" "$kernel" "$plan" "$out" >/dev/null 2>&1 || rc=$?
		record_boot "$rundir" "$stage" "$plan" "$out" "$rc"
		if [ ! -f "$out/result.json" ]; then
			printf '%s\t%s\t%s\tinfrastructure\t-\t-\n' "$tree" "$stage" "$i" >>"$table"
			info "stage $stage boot $i/$boots: exit $rc, not judged; console: $out/console.log"
			worst=4
			continue
		fi
		verdict=$(python3 "$TOP/scripts/judge.py" --show "$out/result.json" verdict)
		splat=$(python3 "$TOP/scripts/judge.py" --show "$out/result.json" message |
			sed -n 's/^kernel failure on [^:]*: \(.*\); console: .*/\1/p')
		figures=$(sed -n '/^# eevdf_fork: /{s///;s/\r$//;p;q}' "$out/console.log")
		[ "$verdict" != splat ] || oopsed=$((oopsed + 1))
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tree" "$stage" "$i" "$verdict" \
			"${splat:--}" "${figures:--}" >>"$table"
		info "stage $stage boot $i/$boots: $verdict${splat:+: $splat}${figures:+ ($figures)}"
		# A pass is a survived run only with the reproducer's figures.
		case $verdict:$figures in
		pass:rounds=* | splat:*) ;;
		*) worst=4 ;;
		esac
	done
	info "stage $stage ($flavour): $oopsed of $boots boots oopsed in ${duration} s of the reproducer"
done
if [ "$worst" = 0 ]; then
	echo complete >"$rundir/status"
else
	echo failed >"$rundir/status"
fi
info "oops-repro: $table"
exit "$worst"
