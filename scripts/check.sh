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
# shellcheck disable=SC2086 # one word per test file
exec prove --timer --exec bash $tests
