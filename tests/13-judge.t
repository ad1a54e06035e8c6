#!/bin/bash
# The judge on recorded boots, with no boot: every exit class, the KTAP
# parse errors, kselftest's nameless SKIP lines, and the expected matrix
# (expected failures, an unexpected result, no expectation). The recorded
# boots are real ones (scripts/record-fixtures.sh boots); the variants are
# made here from them by changing one thing each.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 52
fix=$TOP/tests/fixtures/boots
matrix=$TOP/tests/selftest-matrix
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# judge CASE [args...]: sets rc and out (the judge's stderr)
judge()
{
	local d=$tmp/$1

	shift
	rc=0
	out=$(python3 "$TOP/scripts/judge.py" "$d" "$@" 2>&1) || rc=$?
}

# variant NAME FROM: a copy of recorded boot FROM to change
variant()
{
	rm -rf "${tmp:?}/$1"
	cp -r "$fix/$2" "$tmp/$1"
}

show()
{
	python3 "$TOP/scripts/judge.py" --show "$tmp/$1/result.json" "$2"
}

# The pass, and what result.json carries.
variant smoke smoke
judge smoke
t_is "$rc" 0 "a recorded smoke boot passes"
t_like "$out" "^pass: stage pristine \(plan smoke\): [0-9]+ passed, 0 failed" "and says so in one line"
t_is "$(show smoke verdict) $(show smoke provenance.stage) $(show smoke provenance.plan)" "pass pristine smoke" \
	"result.json has the verdict and the provenance"
# An independent count: the console's result lines, against the judge's.
t_is "$(t_subtests "$tmp/smoke" | wc -l)" "$(tr -d '\r' <"$fix/smoke/console.log" | grep -cE '^(not )?ok [0-9]+ ')" \
	"every KTAP result of the console is a subtest"
t_is "$(t_subtest "$tmp/smoke" idle_policy)" pass "subtests by name (idle_policy)"
t_ok "$([ -s "$tmp/smoke/ktap.log" ]; echo $?)" "ktap.log is kept for people"

variant timeout smoke
sed -i 's/^qemu_exit=0$/qemu_exit=124/' "$tmp/timeout/provenance"
judge timeout
t_is "$rc" 3 "QEMU killed by timeout(1) is a timeout"
t_like "$out" "^error: timeout: stage pristine \(plan smoke\) did not power off within [0-9]+s" "and says so"

variant qemufail smoke
sed -i 's/^qemu_exit=0$/qemu_exit=1/' "$tmp/qemufail/provenance"
echo "qemu-system-x86_64: -kernel nosuch: could not load kernel" >"$tmp/qemufail/qemu.log"
judge qemufail
t_is "$rc" 4 "QEMU failing is an infrastructure error"
t_like "$out" "^error: infrastructure: QEMU exited 1 on stage pristine: .*could not load kernel$" "with QEMU's last line"

variant cpus smoke
echo "sched-idle: infra: the guest has 3 of 4 CPUs online" >>"$tmp/cpus/console.log"
judge cpus
t_is "$rc" 4 "the guest's infra line is an infrastructure error"
t_like "$out" "^error: infrastructure: the guest has 3 of 4 CPUs online \(stage pristine\)$" "in the guest's words"

variant noktap smoke
sed -i -E '/^(KTAP version|TAP version)/d' "$tmp/noktap/console.log"
judge noktap
t_is "$rc:$(show noktap verdict)" "4:infrastructure" "no KTAP is an infrastructure error"

variant nodone smoke
rm "$tmp/nodone/guest/guest-done"
judge nodone
t_like "$rc $out" "^4 error: infrastructure: the guest wrote no results" "a guest that wrote nothing is an infrastructure error"

variant short smoke
last=$(tr -d '\r' <"$tmp/short/console.log" | grep -E '^(not )?ok [0-9]+ ' | tail -n1)
grep -vF "$last" "$tmp/short/console.log" >"$tmp/short/console.new"
mv "$tmp/short/console.new" "$tmp/short/console.log"
judge short
t_like "$rc $out" "^4 error: infrastructure: cannot parse the KTAP .*: [0-9]+ results for a plan of [0-9]+" \
	"fewer results than planned is a parse error"

variant numbering smoke
sed -i -E 's/^ok 2 /ok 3 /' "$tmp/numbering/console.log"
judge numbering
t_like "$rc $out" "^4 error: infrastructure: cannot parse the KTAP .*: result 3 where 2 was due" \
	"a result out of sequence is a parse error"

variant bail smoke
sed -i -E 's/^ok 2 .*/Bail out! no cgroup2/' "$tmp/bail/console.log"
judge bail
t_like "$rc $out" "^1 error: test failure on stage pristine \(plan smoke\): bailed out after 1 of [0-9]+: no cgroup2" \
	"Bail out! is a test failure, with its reason"

variant fail smoke
sed -i -E 's/^ok 1 topology/# topology: 3 CPUs, want 4\nnot ok 1 topology/' "$tmp/fail/console.log"
judge fail
t_is "$rc" 1 "a failing subtest is a test failure"
t_like "$out" "^error: test failure on stage pristine \(plan smoke\): topology: 3 CPUs, want 4$" \
	"naming the subtest and the diagnostic above it"

variant glued smoke
sed -i -E 's/^(KTAP version 1)/hrtimer: interrupt took 27965410 ns\1/' "$tmp/glued/console.log"
judge glued
t_is "$rc" 0 "a kernel message on the version line's console line does not hide the KTAP"

variant trailing smoke
plan=$(grep -E '^1\.\.[0-9]+' "$tmp/trailing/console.log")
grep -vF "$plan" "$tmp/trailing/console.log" |
	sed -E "s/^(sched-idle: plan .*)/$(printf '%s' "$plan" | tr -d '\r')\n\1/" >"$tmp/trailing/console.new"
mv "$tmp/trailing/console.new" "$tmp/trailing/console.log"
judge trailing
t_is "$rc" 0 "a plan line after the results (TAP 13) is a plan"

variant skipall smoke
sed -i -E '/^(not )?ok [0-9]+ /d; s/^1\.\.[0-9]+.*/1..0 # SKIP no cgroup2 here/' "$tmp/skipall/console.log"
judge skipall
t_is "$rc:$(show skipall summary)" "0:skipped: no cgroup2 here" "1..0 with SKIP skips the whole plan"

variant todo smoke
sed -i -E 's/^ok 1 topology.*/not ok 1 topology # TODO not yet/' "$tmp/todo/console.log"
judge todo
t_is "$rc:$(t_subtest "$tmp/todo" topology)" "0:todo" "a TODO subtest that fails is not a failure"

# A splat fails the boot even when every subtest passed.
variant warn warn
judge warn
t_is "$rc" 2 "a WARNING splat is a kernel failure"
t_like "$out" "^error: kernel failure on stage pristine \(plan warn\): WARNING: CPU: 0 PID: 1" "with the WARNING line"
t_like "$(cat "$tmp/warn/splat.txt" 2>/dev/null)" "WARNING: CPU: 0 PID: 1" "the excerpt is in splat.txt"
judge warn --expect none --column pristine
t_is "$rc" 2 "and a splat fails whatever the expectation"

# An oops whose trap prints no BUG: line (int3, or BUG() without
# CONFIG_DEBUG_BUGVERBOSE) is named by die()'s header, not by the panic.
variant int3 smoke
sed -i -E 's/^(ok 1 topology.*)/\1\nint3: 0000 [#1] SMP\nCPU: 1 PID: 0 Comm: swapper\/1 Not tainted 6.1.0 #1\nRIP: 0010:trace_sched_wakeup+0x0\/0x40\nKernel panic - not syncing: Fatal exception in interrupt/' \
	"$tmp/int3/console.log"
judge int3
t_is "$rc" 2 "an int3 oops is a kernel failure"
t_like "$out" "^error: kernel failure on stage pristine \(plan smoke\): int3: 0000 \[#1\] SMP;" \
	"an int3 oops is named by its die() line, not the panic after it"
t_like "$(cat "$tmp/int3/splat.txt" 2>/dev/null)" "RIP: 0010:trace_sched_wakeup" "and its excerpt has the RIP"

# The selftest on baseline: kselftest's nameless SKIP lines and failures
# the matrix expects.
variant base selftest-baseline
judge base
t_is "$rc" 1 "without the matrix, baseline's selftest is a test failure"
t_is "$(t_subtest "$tmp/base" accounting_zero)" skip \
	"kselftest's nameless skip line (ok N, SKIP directive, name: reason) is a skip of that name"
t_like "$(python3 "$TOP/scripts/judge.py" --show "$tmp/base/result.json" subtests.7.reason)" "idle_h_nr_running" \
	"with its reason"
judge base --expect "$matrix" --column baseline
t_is "$rc" 0 "with the matrix, baseline is as expected"
t_is "$(show base summary)" "expected fail: fast_path fast_path_sis_util consistency nested_task" \
	"and its summary lists the expected failures"
t_is "$(show base expectation)" match "result.json says match"

t_flip_matrix "$matrix" baseline fast_path pass >"$tmp/mutant"
judge base --expect "$tmp/mutant" --column baseline
t_is "$rc" 1 "a matrix claiming fast_path passes on baseline fails the boot"
t_is "$out" "error: stage baseline (plan selftest): UNEXPECTED: fast_path not ok (expected ok); fast_path: 200 of 200 wakeups stacked on the busy CPU0" \
	"with exactly one error line naming the stage and the subtest, and what the subtest measured"
t_is "$(show base summary)" "UNEXPECTED: fast_path not ok (expected ok)" "and the summary says UNEXPECTED"

# A row named PLAN:SUBTEST is for that plan's boots only: the same boot,
# labelled a PLAN=selftest-fork boot, is judged by the selftest-fork rows
# and by nothing else.
variant forkplan selftest-baseline
sed -i 's/^plan=.*/plan=selftest-fork/' "$tmp/forkplan/provenance"
judge forkplan --expect "$matrix" --column baseline
t_like "$rc $out" "^1 error: stage baseline \(plan selftest-fork\): UNEXPECTED: fork_group_idle missing \(expected ok\)" \
	"a PLAN=selftest-fork boot is judged by the matrix's selftest-fork rows"
t_is "$(python3 "$TOP/scripts/judge.py" --show "$tmp/forkplan/result.json" unexpected.1.name)" fast_path \
	"and every subtest of another plan in it is unexpected"

awk '$1 == "accounting_zero" { next } { print }' "$matrix" >"$tmp/short-matrix"
judge base --expect "$tmp/short-matrix" --column baseline
t_like "$rc $out" "^1 error: .*UNEXPECTED: accounting_zero skip \(expected missing\)" \
	"a subtest the matrix does not know is unexpected too"
t_like "$out" "UNEXPECTED: accounting_zero skip \(expected missing\); .*idle_h_nr_running" \
	"and its line ends with the skip's reason"

judge base --expect "$matrix" --column nosuch
t_is "$rc" 0 "a stage with no column fails only on a crash or a parse error"
t_is "$(show base summary)" "no expectation (4 not ok: fast_path fast_path_sis_util consistency nested_task)" \
	"and is reported as no expectation, with what failed"
judge base --expect none --column baseline
t_is "$rc:$(show base expectation)" "0:none" "--expect none (a KDIR= tree) is no expectation too"

judge base --expect "$tmp/nosuch-matrix" --column baseline
t_like "$rc $out" "^4 error: infrastructure: cannot read the expected matrix" \
	"a matrix that cannot be read is an infrastructure error, not a test failure"
t_is "$(show base verdict)" infrastructure "and result.json says so"

variant shortbase selftest-baseline
sed -i -E '/^ok [0-9]+ # SKIP accounting_zero/d' "$tmp/shortbase/console.log"
judge shortbase --expect none --column baseline
t_is "$rc" 4 "without an expectation, a KTAP that does not parse still fails"

variant pristine selftest-pristine
judge pristine --expect "$matrix" --column pristine
t_is "$rc" 0 "pristine's selftest is as the matrix says"
t_is "$(show pristine summary)" "expected fail: fast_path_sis_util nested_group accounting_nested" \
	"SIS_UTIL's hiding of sched-idle CPUs and the nested cgroup's count are expected failures on the packaged tree"
judge pristine --expect "$matrix" --column sis-util
t_like "$rc $out" "^1 error: stage pristine \(plan selftest\): UNEXPECTED: fast_path_sis_util not ok \(expected ok\)" \
	"and would be unexpected under sis-util's column"
