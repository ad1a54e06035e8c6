#!/bin/bash
# The test suite: install what it needs, then run tests/*.t through prove.
# env: TESTS (space-separated test files; default all)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

take_lock
"$TOP/scripts/deps.sh" check
cd "$TOP"
# shellcheck disable=SC2086 # one word per test file
exec prove --timer --exec bash ${TESTS:-tests/*.t}
