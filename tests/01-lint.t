#!/bin/bash
# Shell passes shellcheck: host scripts as bash, guest scripts as sh.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 2
out=$(cd "$TOP" && shellcheck scripts/*.sh tests/*.t tests/lib.sh .ci/run 2>&1)
t_ok $? "shellcheck host scripts"
[ -z "$out" ] || t_diag "$out"
out=$(cd "$TOP" && shellcheck -s sh initramfs/init initramfs/lib/*.sh initramfs/plans/*.sh 2>&1)
t_ok $? "shellcheck guest scripts"
[ -z "$out" ] || t_diag "$out"
