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
take_lock
"$TOP/scripts/deps.sh" check
cd "$TOP"
tests=$(setting TESTS)
if [ -z "$tests" ]; then
	if [ -n "$quick" ]; then
		tests=$(grep -l '^# tier: quick' tests/*.t | tr '\n' ' ')
	else
		tests=$(echo tests/*.t)
	fi
fi
# shellcheck disable=SC2086 # one word per test file
exec prove --timer --exec bash $tests
