#!/bin/bash
# The test suite: install what it needs, then run tests/*.t through prove.
# usage: check.sh [--quick]
#   --quick: only the files marked "# tier: quick", which build no kernel
#   and boot nothing (lint, host logic, the judge and the analyser on
#   fixtures, the oracle, checkpatch).
# env: TESTS (scripts/variables)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
check_settings

quick=""
case ${1:-} in
--quick) quick=1 ;;
"") ;;
*) die "usage: check.sh [--quick]" ;;
esac
take_all_locks
"$TOP/scripts/deps.sh" check
# The test files pick their trees: tests/NAME.t is for 6.1 and
# tests/NAME-6.12.t runs it with TREE=6.12.
[ -z "${TREE:-}" ] || info "make check covers every tree; TREE=$TREE is not used"
unset TREE
# make exports KDIR, and lib.sh filled in this tree's default: leave it
# unset, so that each test file takes its own tree's default.
[ "$KDIR" != "$DEFAULT_KDIR" ] || unset KDIR
cd "$TOP"
tests=$(setting TESTS)
if [ -z "$tests" ]; then
	if [ -n "$quick" ]; then
		tests=$(grep -l '^# tier: quick' tests/*.t | tr '\n' ' ')
	else
		tests=$(echo tests/*.t)
	fi
fi
# Every failed test's line and diagnostics, by file, printed again at
# the end: a CI log often shows only its tail.
# take_all_locks made build/.
export T_FAIL_LOG=$TOP/build/check-failures.log
prove_log=$TOP/build/check-prove.log
rm -f "$T_FAIL_LOG"
rc=0
started=$(date +%T)
# shellcheck disable=SC2086 # one word per test file
prove --timer --exec bash $tests 2>&1 | tee "$prove_log" || rc=$?
# Each file's time, slowest first, on one line: where a run's time goes
# is what the suite's speed is judged by, and a CI log shows its tail.
file_times()
{
	# prove --timer stamps each file's line when the file ends (its
	# output is not a terminal); a failed file gets no "ms" figure, so
	# the stamps it is, from the start recorded above.
	awk -v start="$started" 'function secs(t) { split(t, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
		BEGIN { last = secs(start) }
		/^\[[0-9:]+\] [^ ]+\.t / {
			t = secs(substr($1, 2, 8)); d = t - last; if (d < 0) d += 86400; last = t
			name = $2; sub(/.*\//, "", name); sub(/\.t$/, "", name); print d, name
		}' "$prove_log" |
		sort -rn | awk '{ printf "%s%s %ds", (NR > 1 ? ", " : "seconds per file: "), $2, $1 }
			END { if (NR) print "" }'
}
if [ "$rc" = 0 ]; then
	file_times
	exit 0
fi
# The first lines of each failing file: its first failure is the one
# that explains the rest.
if [ -s "$T_FAIL_LOG" ]; then
	echo "failed tests, with their diagnostics (the first 12 lines per file; all in $T_FAIL_LOG):"
	awk '{ file = $1; if (++n[file] <= 12) print }' "$T_FAIL_LOG"
fi
# Last, where a log's tail shows it even when it shows little: each
# failing file's first failure and its first diagnostics, any bail-out,
# and prove's words for a file that failed without a failed test (it
# died, or ran fewer tests than it planned).
echo "the first failure of each failing file:"
[ ! -s "$T_FAIL_LOG" ] || awk '{ file = $1 }
	$2 == "not" || $2 == "Bail" { tests[file]++ }
	$2 == "Bail" || (tests[file] == 1 && ++n[file] <= 6)' "$T_FAIL_LOG"
awk '/^Test Summary Report/ { on = 1; next }
	on && /^tests\// { file = $1; sub(/^tests\//, "", file); sub(/\.t$/, "", file); print file "\t" $0; next }
	on && /^  / && file != "" { print file "\t" $0 }' "$prove_log" |
	while IFS=$'\t' read -r name line; do
		grep -q "^$name: " "$T_FAIL_LOG" 2>/dev/null || echo "$name: no failed test logged; prove: $line"
	done
file_times
exit "$rc"
