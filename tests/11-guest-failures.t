#!/bin/bash
# run-qemu.sh and its judge tell a kernel crash, a hang, a failing subtest
# and an infrastructure error apart, by exit code and by message, on real
# boots: one per failure class. The judge's finer cases (a WARNING splat,
# parse errors, the expected matrix) are tested on recorded consoles in
# tests/13-judge.t, with no boot.
. "$(dirname "$0")/lib.sh"
t_plan 14
t_pristine_guest
kernel=$T_KERNEL
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run PLAN [env...]: sets rc and out
run()
{
	local plan=$1

	shift
	rc=0
	out=$(env "$@" "$TOP/scripts/run-qemu.sh" --timeout "${T_TIMEOUT:-300}" pristine "$kernel" "$plan" "$tmp/$plan" 2>&1) || rc=$?
}

run panic
t_is "$rc" 2 "a crashing guest exits 2"
t_like "$out" "^error: kernel failure on stage pristine \(plan panic\): Kernel panic - not syncing: sysrq triggered crash" "and says kernel failure, with the panic line"
t_ok "$([ -s "$tmp/panic/splat.txt" ]; echo $?)" "and keeps the excerpt"

T_TIMEOUT=30 run hang
t_is "$rc" 3 "a guest that never powers off exits 3"
t_like "$out" "^error: timeout: stage pristine \(plan hang\) did not power off within 30s" "and says timeout"
t_like "$(cat "$tmp/hang/console.log")" "^1\.\.1" "and keeps the console"

run ktap-fail
t_is "$rc" 1 "a failing subtest exits 1"
t_like "$out" "^error: test failure on stage pristine \(plan ktap-fail\)" "and says test failure"
t_like "$out" "always_fails" "and names the subtest"

t_is "$(python3 "$TOP/scripts/judge.py" --show "$tmp/ktap-fail/result.json" verdict)" fail \
	"and result.json says fail"
# Two dies in one package: 4 CPUs, 1 package, which the guest must expect.
run smoke SMP=cpus=4,sockets=1,dies=2,cores=2,threads=1
t_is "$rc" 0 "a healthy guest passes the smoke plan"
t_is "$(t_subtest "$tmp/smoke" topology)" pass "SMP= with dies= is checked as QEMU builds it"

# maxcpus=3 leaves a vCPU offline, as a missed bring-up deadline would.
run smoke APPEND=maxcpus=3
t_is "$rc" 4 "a guest short of a CPU is an infrastructure error"
t_like "$out" "^error: infrastructure: the guest has 3 of 4 CPUs online" "and says how many came up"
