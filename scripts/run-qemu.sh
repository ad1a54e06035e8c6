#!/bin/bash
# Boot one kernel with the test initramfs and run one plan; then let
# scripts/judge.py judge the boot into OUTDIR/result.json.
# usage: run-qemu.sh [--timeout S] [--expect MATRIX] [--steal] [--pin]
#                    [--nice N] STAGE BZIMAGE PLAN OUTDIR
#   --steal  record the vCPU threads' time on and waiting for a host CPU
#            per window the plan marks (OUTDIR/steal.tsv, vcpu-steal.py)
#   --pin    pin each vCPU thread to a host CPU of its own
#   --nice N run QEMU at host nice level N (below 0 needs root)
# env:   SMP, MEM, ACCEL, DRY_RUN (scripts/variables), APPEND (extra kernel
#        command line), RESULTS_RO=1 (export the results folder read-only,
#        to exercise the guest's write-failure path)
#
# Exit codes are the judge's, so that callers can tell failures apart:
#   0 pass   1 a subtest failed (or, with --expect, was not as expected)
#   2 kernel failure (panic, oops, BUG, WARNING, RCU stall, hung task)
#   3 timeout: the guest did not power off in time
#   4 infrastructure: QEMU failed, no KTAP, or the guest wrote no results
# With DRY_RUN=1 it prints the QEMU command line and boots nothing.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

usage="usage: run-qemu.sh [--timeout S] [--expect MATRIX|none] [--steal] [--pin] [--nice N] STAGE BZIMAGE PLAN OUTDIR"
check_settings
timeout=$(setting TIMEOUT)
expect=()
steal="" pin="" nice=0
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) [ $# -ge 2 ] || die "$usage"; check_value --timeout "$2" seconds; timeout=$2; shift 2 ;;
	--expect) [ $# -ge 2 ] || die "$usage"; expect=(--expect "$2"); shift 2 ;;
	--steal) steal=1; shift ;;
	--pin) pin=1 steal=1; shift ;;
	--nice)
		if ! [ $# -ge 2 ] || ! [[ $2 =~ ^-?[0-9]+$ ]] || ((${2#-} > 20 || $2 > 19)); then
			die "--nice wants a nice level from -20 to 19"
		fi
		# Else nice only warns and runs QEMU at 0, and the provenance lies.
		[ "$2" -ge 0 ] || [ "$(id -u)" = 0 ] || die "--nice $2 needs root"
		nice=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# = 4 ] || die "$usage"
stage=$1 kernel=$2 plan=$3
# Absolute: the guest's share is named by path in the QEMU command.
outdir=$(realpath -m "$4")
[ ${#expect[@]} = 0 ] || expect+=(--column "$stage")
smp=$(plan_smp "$plan")
cmdline=$(guest_cmdline "$plan" "$stage" "$smp")
# The host CPUs this process may use (its affinity), not all the host has.
host_cpus=$(nproc)
runner=(timeout --kill-after=10 "$timeout")
[ "$nice" = 0 ] || runner=(nice -n "$nice" "${runner[@]}")

if [ "$(setting DRY_RUN)" = 1 ]; then
	qemu_command "${ACCEL:-tcg,thread=multi}" "$smp" "$kernel" "$cmdline" \
		"file:$outdir/console.log" "$outdir/guest"
	[ -z "$steal" ] || QEMU_CMD+=(-pidfile "$outdir/qemu.pid")
	dry_run_accel_note
	echo "${runner[*]} ${QEMU_CMD[*]@Q}"
	exit 0
fi
[ -f "$kernel" ] || die "no kernel $kernel"
[ -f "$BUILD/initramfs.cpio.gz" ] || die "no initramfs $BUILD/initramfs.cpio.gz; run scripts/build-initramfs.sh"

rm -rf "$outdir"
mkdir -p "$outdir/guest"
accel=$(probe_accel "$kernel")
qemu_command "$accel" "$smp" "$kernel" "$cmdline" "file:$outdir/console.log" "$outdir/guest"
# The monitor finds the vCPU threads through QEMU's pid.
[ -z "$steal" ] || QEMU_CMD+=(-pidfile "$outdir/qemu.pid")

{
	echo "tree=$TREE_VERSION"
	echo "tree_source=$(cat "$KDIR/.sched-idle-base" 2>/dev/null || echo "$KDIR")"
	echo "stage=$stage"
	echo "plan=$plan"
	echo "kernel=$kernel"
	[ ! -f "${kernel%/*}/build-info" ] || sed 's/^/kernel_/' "${kernel%/*}/build-info"
	echo "series_hash=$(series_hash)"
	echo "qemu=$(qemu-system-x86_64 --version | head -n1)"
	echo "accel=$accel"
	echo "smp=$smp"
	echo "cmdline=$cmdline"
	echo "qemu_command=${QEMU_CMD[*]@Q}"
	echo "timeout_s=$timeout"
	echo "host=$(uname -r) $(nproc --all) cpus"
	echo "host_cpus=$host_cpus"
	echo "vcpus=$(smp_topology "$smp" | cut -d, -f1)"
	# More vCPU threads than host CPUs: a woken guest task can wait for
	# its vCPU's host thread, whatever the guest decided.
	echo "oversubscribed=$(oversubscribed "$smp" "$host_cpus")"
	echo "vcpu_pinned=${pin:-0}"
	echo "qemu_nice=$nice"
	echo "host_load=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "date=$(date -u +%FT%TZ)"
} >"$outdir/provenance"

monitor=""
if [ -n "$steal" ]; then
	python3 "$TOP/scripts/vcpu-steal.py" record --pidfile "$outdir/qemu.pid" \
		--console "$outdir/console.log" --done "$outdir/qemu.exited" \
		--out "$outdir/steal.tsv" ${pin:+--pin} 2>"$outdir/vcpu-steal.log" &
	monitor=$!
	# Interrupted, this script takes its monitor with it.
	trap 'kill "$monitor" 2>/dev/null || true' EXIT
fi
set +e
start=$(date +%s)
"${runner[@]}" "${QEMU_CMD[@]}" >"$outdir/qemu.log" 2>&1
qrc=$?
set -e
if [ -n "$monitor" ]; then
	# The monitor ends once QEMU is gone, or at this file: a QEMU that
	# never started wrote no pid file to follow. Without its steal.tsv
	# the report calls the boot's latency not comparable; the boot itself
	# is still judged.
	: >"$outdir/qemu.exited"
	wait "$monitor" || info "warning: vcpu-steal.py failed, no steal.tsv: $(tail -n1 "$outdir/vcpu-steal.log")"
	trap - EXIT
fi
{
	echo "boot_seconds=$(($(date +%s) - start))"
	echo "qemu_exit=$qrc"
} >>"$outdir/provenance"
exec python3 "$TOP/scripts/judge.py" "$outdir" "${expect[@]}"
