#!/bin/bash
# Which host-side settings make the latency measurement repeatable: boot
# one stage COUNT times under each SETTING, the settings interleaved boot
# by boot, each into a results run of its own under OUTDIR, and print per
# setting the woken wu_lat means per boot, their standard deviation between
# boots and the vCPUs' steal (from each run's metrics.tsv).
# usage: aa-probe.sh STAGE COUNT OUTDIR SETTING...
#   SETTING: plain (what make qemu-test does), pin (each vCPU thread on a
#   host CPU of its own), nice (QEMU at host nice -10), pin+nice
# env: MEASURE_DURATION, WORKLOADS (t1,t2 here), POLICIES (v5.4-scan, or
#      no-sis-util on 6.12, here), SMP (scripts/variables; the guest is
#      sized as the measurement's)
# Run it on an otherwise idle host: it measures the host's noise.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

check_settings
usage="usage: aa-probe.sh STAGE COUNT OUTDIR SETTING... (plain pin nice pin+nice)"
[ $# -ge 4 ] || die "$usage"
stage=$1 count=$2 out=$3
shift 3
check_value STAGE "$stage" stages
check_value COUNT "$count" count
for s in "$@"; do
	case $s in plain | pin | nice | pin+nice) ;; *) die "no setting '$s'; $usage" ;; esac
done
[ "$count" -ge 2 ] || die "COUNT=$count: a spread between boots needs 2 boots or more"
kernel_is_current "$stage" smp || die "stage $stage has no current smp kernel; run make qemu-test STAGE=$stage"
[ ! -e "$out" ] || die "$out exists; give a new folder"
duration=$(setting MEASURE_DURATION)
workloads=${WORKLOADS:-t1,t2}
# The tree's policy without SIS_UTIL's cut-off.
policies=${POLICIES:-$(tree_policies | cut -d' ' -f2)}
check_value WORKLOADS "$workloads" workloads
check_value POLICIES "$policies" policies
smp=$(measure_smp "$(nproc)")
# Generous: these workloads and a boot of seconds.
timeout=$((120 + 20 * duration))

for s in "$@"; do
	mkdir -p "$out/$s"
	echo "$stage" >"$out/$s/measure-stages"
done
for r in $(seq 1 "$count"); do
	for s in "$@"; do
		flags=(--steal)
		case $s in *pin*) flags+=(--pin) ;; esac
		case $s in *nice*) flags+=(--nice -10) ;; esac
		info "  aa-probe [$r/$count] $s"
		rc=0
		SMP=$smp APPEND="$TRACE_CMDLINE sched_idle.duration=$duration sched_idle.workloads=$workloads sched_idle.windows=1 sched_idle.policies=$policies sched_idle.hackbench_runs=1 sched_idle.hackbench_loops=1" \
			"$TOP/scripts/run-qemu.sh" --timeout "$timeout" "${flags[@]}" "$stage" \
			"$(kernel_dir "$stage" smp)/bzImage" measure "$out/$s/$stage/measure-r$r" || rc=$?
		record_boot "$out/$s" "$stage" measure "$out/$s/$stage/measure-r$r" "$rc"
		[ "$rc" = 0 ] || die "boot $r of setting $s failed (exit $rc); see $out/$s/$stage/measure-r$r"
	done
done

# Only now, with no guest running: the analysis is host load.
printf '%-9s %-9s %-8s %-28s %-12s %s\n' setting policy workload "woken mean per boot (us)" "SD, boots" "steal % per boot"
for s in "$@"; do
	"$TOP/scripts/analyse.sh" "$out/$s" >/dev/null 2>&1 || die "analysis of $out/$s failed; run scripts/analyse.sh $out/$s"
	for p in ${policies//,/ }; do
		for w in ${workloads//,/ }; do
			awk -F'\t' -v s="$s" -v p="$p" -v w="$w" '
				$3 == p && $4 == w && $2 ~ /^[0-9]+$/ && $5 == "woken_mean_us" { m = m (m ? " / " : "") $6 }
				$3 == p && $4 == w && $2 ~ /^[0-9]+$/ && $5 == "steal_pct" { st = st (st ? " / " : "") $6 }
				$3 == p && $4 == w && $2 == "all" && $5 == "bootsd_woken_mean_us" { a = $6 }
				END { printf "%-9s %-9s %-8s %-28s %-12s %s\n", s, p, w, m, a, st }' "$out/$s/metrics.tsv"
		done
	done
done
