#!/bin/bash
# Boot one kernel with the test initramfs and run one plan; then let
# scripts/judge.py judge the boot into OUTDIR/result.json.
# usage: run-qemu.sh [--timeout S] [--expect MATRIX] STAGE BZIMAGE PLAN OUTDIR
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

usage="usage: run-qemu.sh [--timeout S] [--expect MATRIX|none] STAGE BZIMAGE PLAN OUTDIR"
check_settings
timeout=$(setting TIMEOUT)
expect=()
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) [ $# -ge 2 ] || die "$usage"; check_value --timeout "$2" seconds; timeout=$2; shift 2 ;;
	--expect) [ $# -ge 2 ] || die "$usage"; expect=(--expect "$2"); shift 2 ;;
	*) break ;;
	esac
done
[ $# = 4 ] || die "$usage"
stage=$1 kernel=$2 plan=$3
# Absolute: the guest's share is named by path in the QEMU command.
outdir=$(realpath -m "$4")
[ ${#expect[@]} = 0 ] || expect+=(--column "$stage")
smp=$(smp_string "$(setting SMP)")
cmdline=$(guest_cmdline "$plan" "$stage" "$smp")

if [ "$(setting DRY_RUN)" = 1 ]; then
	qemu_command "${ACCEL:-tcg,thread=multi}" "$smp" "$kernel" "$cmdline" \
		"file:$outdir/console.log" "$outdir/guest"
	dry_run_accel_note
	echo "timeout --kill-after=10 $timeout ${QEMU_CMD[*]@Q}"
	exit 0
fi
[ -f "$kernel" ] || die "no kernel $kernel"
[ -f "$BUILD/initramfs.cpio.gz" ] || die "no initramfs $BUILD/initramfs.cpio.gz; run scripts/build-initramfs.sh"

rm -rf "$outdir"
mkdir -p "$outdir/guest"
accel=$(probe_accel "$kernel")
qemu_command "$accel" "$smp" "$kernel" "$cmdline" "file:$outdir/console.log" "$outdir/guest"

{
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
	echo "host=$(uname -r) $(nproc) cpus"
	echo "host_load=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "date=$(date -u +%FT%TZ)"
} >"$outdir/provenance"

set +e
start=$(date +%s)
timeout --kill-after=10 "$timeout" "${QEMU_CMD[@]}" >"$outdir/qemu.log" 2>&1
qrc=$?
set -e
{
	echo "boot_seconds=$(($(date +%s) - start))"
	echo "qemu_exit=$qrc"
} >>"$outdir/provenance"
exec python3 "$TOP/scripts/judge.py" "$outdir" "${expect[@]}"
