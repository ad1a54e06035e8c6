#!/bin/bash
# Named failure modes of the harness (issue 6): each exits non-zero with
# one "error:" line naming the cause, and leaves nothing that looks like
# success. Crashes, hangs and subtest failures are in 11-guest-failures.t,
# bad KDIRs in 03-kdir.t, bad patches in 22-bad-patch.t, send-email
# without TO in 40-send-email.t.
. "$(dirname "$0")/lib.sh"
t_plan 15
tmp=$(mktemp -d)
chmod 755 "$tmp"
holder=""
cleanup()
{
	[ -z "$holder" ] || kill "$holder" 2>/dev/null
	t_series_restore "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT

# 1. A missing package as non-root: the exact apt-get line. dpkg-query
# reads an empty database (DPKG_ADMINDIR), so every package is missing.
cp -r "$TOP/scripts" "$tmp/scripts"
mkdir -p "$tmp/dpkg"
: >"$tmp/dpkg/status"
out=$(DPKG_ADMINDIR=$tmp/dpkg setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$tmp/scripts/deps.sh" run 2>&1)
t_ok $(($? == 0)) "a missing package as non-root fails"
t_like "$out" "^error: missing packages; run: sudo apt-get install -y .*qemu-system-x86.*rt-app" \
	"with the exact apt-get command"

# 4. A patch that breaks the build: the stage and the first compiler error.
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
t_mutant_series "$tmp" "$(stage_names | tail -n1)" broken \
	'{ print } /^#include "sched.h"$/ { print "static int broken = ;" }'
latest=$(readlink "$RESULTS/latest" 2>/dev/null || echo none)
runs=$(find "$RESULTS" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort)
out=$(SERIES=$tmp/series PATCHES=$tmp/patches STAGE=broken "$TOP/scripts/qemu-test.sh" 2>&1)
t_ok $(($? == 0)) "a patch that breaks the build fails qemu-test"
t_like "$out" "^error: build of stage broken \(smp\) failed: .*kernel/sched/fair\.c:[0-9]+:[0-9]+: error: " \
	"with the stage and the first compiler error"
t_is "$(readlink "$RESULTS/latest" 2>/dev/null || echo none)" "$latest" "results/latest still points at the last complete run"
new=$(comm -13 <(echo "$runs") <(find "$RESULTS" -mindepth 1 -maxdepth 1 -type d | sort))
t_is "$(cat "$new/status" 2>/dev/null)" failed "and the partial run says failed"
t_like "$out" "^results \(stopped early\): ${new:-no new run}$" "and where it is"

# 7. A malformed workload: on the host with the parser's position, in the
# guest with rt-app's own message.
printf '{ "tasks" : { "t" : { "run" : 1000, } }\n' >"$tmp/malformed.json"
out=$("$TOP/scripts/check-workloads.sh" "$tmp/malformed.json" 2>&1)
t_ok $(($? == 0)) "a malformed workload is refused before any boot"
t_like "$out" "^error: malformed workload .*malformed\.json: .*line 1 column [0-9]+" "with line and column"
t_pristine_guest
kernel=$T_KERNEL
rc=0
out=$("$TOP/scripts/run-qemu.sh" pristine "$kernel" rtapp-malformed "$tmp/rtapp" 2>&1) || rc=$?
t_is "$rc" 1 "rt-app failing in the guest is a test failure"
t_like "$out" "malformed_workload: rt-app exited 2: \[rt-app\] <error> \[json\] Error while parsing input JSON" \
	"carrying rt-app's own message"

# 8. The guest cannot write its results: an infrastructure error, never a
# result. A short plan will do; the write fails before it runs.
rc=0
out=$(RESULTS_RO=1 "$TOP/scripts/run-qemu.sh" pristine "$kernel" ktap-fail "$tmp/ro" 2>&1) || rc=$?
t_is "$rc" 4 "a read-only results folder is an infrastructure error"
t_like "$out" "^error: infrastructure: cannot write to the results folder \(stage pristine\)" "and says so"

# 10. A second run in the same checkout refuses, or waits with LOCK_WAIT=1,
# and touches nothing. A private BUILD keeps make check's own lock out.
mkdir -p "$tmp/build"
# The holder becomes sleep itself, so killing it releases the lock.
(exec 8>"$tmp/build/.lock" && flock 8 && exec sleep 60) >/dev/null 2>&1 &
holder=$!
# Until the holder has the lock.
for _ in $(seq 100); do
	flock -n "$tmp/build/.lock" true 2>/dev/null || break
	sleep 0.1
done
out=$(env -u SCHED_IDLE_LOCKED BUILD="$tmp/build" RESULTS="$tmp/results" \
	"$TOP/scripts/qemu-test.sh" 2>&1)
t_like "$out" "^error: another run holds $tmp/build/\.lock; wait for it or set LOCK_WAIT=1$" \
	"a concurrent qemu-test refuses"
out=$(env -u SCHED_IDLE_LOCKED BUILD="$tmp/build" RESULTS="$tmp/results" LOCK_WAIT=1 \
	timeout 5 "$TOP/scripts/qemu-test.sh" 2>&1)
t_like "$out" "^waiting for another run in this checkout to finish" "or, with LOCK_WAIT=1, waits"
