#!/bin/bash
# Boot one kernel with the test initramfs, run one plan, and judge the run.
# usage: run-qemu.sh BZIMAGE PLAN OUTDIR
# env:   SMP (default 4, or a full -smp string), TIMEOUT (s), STAGE, ACCEL,
#        MEM, APPEND (extra kernel command line), RESULTS_RO=1 (export the
#        results folder read-only, to exercise the guest's write-failure path)
#
# Exit codes, so that callers can tell failures apart (after virtme-ng):
#   0 all subtests passed        1 a subtest failed
#   2 kernel failure (panic, oops, BUG, WARNING, RCU stall, hung task)
#   3 timeout: the guest did not power off in time
#   4 infrastructure: QEMU failed, no KTAP, or the guest wrote no results
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 3 ] || die "usage: run-qemu.sh BZIMAGE PLAN OUTDIR"
kernel=$1 plan=$2
# Absolute: kunit.py, which parses the KTAP, runs from the kernel tree.
outdir=$(realpath -m "$3")
stage=${STAGE:-unknown}
timeout=${TIMEOUT:-300}
initrd=$BUILD/initramfs.cpio.gz
[ -f "$kernel" ] || die "no kernel $kernel"
[ -f "$initrd" ] || die "no initramfs $initrd; run scripts/build-initramfs.sh"

smp=${SMP:-4}
case $smp in
*=*) ;;
*[!0-9]*|"") die "SMP=$smp: give a CPU count or a full -smp string" ;;
*) smp="$smp,sockets=1,cores=$smp,threads=1" ;;
esac
# What the guest checks it got: CPUs online, packages, threads per core.
topo=$(smp_topology "$smp")

# /dev/kvm may exist and still not work (here QEMU aborts setting MSRs when
# the first vCPU starts, which under host load can take seconds). Only a
# guest that boots proves it: the kernel, without an initramfs, panics for
# want of a root file system and reboots, which -no-reboot turns into a
# clean exit.
probe_accel()
{
	if [ -n "${ACCEL:-}" ]; then
		echo "$ACCEL"
		return
	fi
	if [ -w /dev/kvm ] && timeout 60 qemu-system-x86_64 -accel kvm -M q35 \
		-cpu max -m 256M -smp 1 -kernel "$kernel" -nodefaults \
		-display none -no-reboot -nic none -serial none \
		-append "panic=-1 console=ttyS0" >/dev/null 2>&1; then
		echo kvm
		return
	fi
	echo tcg,thread=multi
}

rm -rf "$outdir"
mkdir -p "$outdir/guest"
console=$outdir/console.log
accel=$(probe_accel)
cmdline="console=ttyS0 loglevel=5 panic=-1 oops=panic sched_idle.plan=$plan"
cmdline="$cmdline sched_idle.stage=$stage sched_idle.topo=$topo ${APPEND:-}"

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
	echo "host=$(uname -r) $(nproc) cpus"
	echo "date=$(date -u +%FT%TZ)"
} >"$outdir/provenance"

# The guest sees only its own results folder; no network.
set +e
start=$(date +%s)
timeout --kill-after=10 "$timeout" qemu-system-x86_64 \
	-accel "$accel" -M q35 -cpu max -m "${MEM:-1G}" -smp "$smp" \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-nodefaults -display none -no-reboot -nic none \
	-serial "file:$console" \
	-virtfs "local,path=$outdir/guest,mount_tag=results,security_model=none,id=results${RESULTS_RO:+,readonly=on}" \
	>"$outdir/qemu.log" 2>&1
qrc=$?
set -e
echo "boot_seconds=$(($(date +%s) - start))" >>"$outdir/provenance"

splat_re='Kernel panic|Oops|BUG:|WARNING:|rcu_sched self-detected stall|rcu: INFO:|detected stalls on CPUs|blocked for more than [0-9]+ seconds|general protection fault|kernel BUG at'

report()
{
	echo "$2" >"$outdir/verdict"
	[ "$1" = 0 ] || error "$2"
	exit "$1"
}

# The serial console ends lines with \r\n; messages quote it without \r.
text=$(mktemp)
trap 'rm -f "$text"' EXIT
if [ -f "$console" ]; then
	tr -d '\r' <"$console" >"$text"
fi
if grep -qE "$splat_re" "$text"; then
	line=$(grep -m1 -nE "$splat_re" "$text" | cut -d: -f1)
	sed -n "$((line > 3 ? line - 3 : 1)),$((line + 12))p" "$text" >"$outdir/splat.txt"
	sed 's/^/  | /' "$outdir/splat.txt" >&2
	report 2 "kernel failure on stage $stage (plan $plan): $(grep -m1 -E "$splat_re" "$text"); console: $console"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	report 3 "timeout: stage $stage (plan $plan) did not power off within ${timeout}s; console: $console"
fi
if [ "$qrc" != 0 ]; then
	report 4 "infrastructure: QEMU exited $qrc on stage $stage: $(tail -n1 "$outdir/qemu.log")"
fi
if grep -q '^sched-idle: infra: ' "$text"; then
	report 4 "infrastructure: $(grep -m1 '^sched-idle: infra: ' "$text" | cut -d' ' -f3-) (stage $stage)"
fi
# Only the plan's own KTAP counts, without the kernel's lines around it.
# kselftests print "TAP version 13", the KTAP header's predecessor.
sed -n -E '/^(KTAP version 1|TAP version 13)$/,/^sched-idle: plan /p' "$text" |
	grep -E '^(K?TAP version|[0-9]+\.\.[0-9]+|(not )?ok [0-9]+|#)' >"$outdir/ktap.log" || true
if ! grep -qE '^(KTAP version 1|TAP version 13)$' "$outdir/ktap.log"; then
	report 4 "infrastructure: no KTAP output from plan $plan on stage $stage; console: $console"
fi
if [ ! -f "$outdir/guest/guest-done" ]; then
	report 4 "infrastructure: the guest wrote no results for plan $plan on stage $stage"
fi
if ! python3 "$KDIR/tools/testing/kunit/kunit.py" parse "$outdir/ktap.log" \
	>"$outdir/ktap-summary.txt" 2>&1; then
	if ! grep -q '^not ok' "$outdir/ktap.log"; then
		report 4 "infrastructure: kunit.py could not parse the KTAP of stage $stage: $(tail -n1 "$outdir/ktap-summary.txt")"
	fi
	report 1 "test failure on stage $stage (plan $plan): $(grep -E '^# .*:|^not ok' "$outdir/ktap.log" | head -n 3 | tr '\n' ' ')"
fi
report 0 "pass: stage $stage plan $plan ($(tail -n1 "$outdir/ktap-summary.txt" | sed 's/^\[[^]]*\] //'))"
