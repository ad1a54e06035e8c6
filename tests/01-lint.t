#!/bin/bash
# Shell passes shellcheck: host scripts as bash, guest scripts as sh.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 2
# One shellcheck per few files, as many at once as there are CPUs: the
# files are checked one by one anyway (no -x), and one process took 37 s.
out=$(cd "$TOP" && printf '%s\n' scripts/*.sh tests/*.t tests/lib.sh .ci/run |
	xargs -d '\n' -n 8 -P "$(nproc)" shellcheck 2>&1)
t_ok $? "shellcheck host scripts"
[ -z "$out" ] || t_diag "$out"
out=$(cd "$TOP" && shellcheck -s sh initramfs/init initramfs/lib/*.sh initramfs/plans/*.sh 2>&1)
t_ok $? "shellcheck guest scripts"
[ -z "$out" ] || t_diag "$out"
