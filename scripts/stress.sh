#!/bin/bash
# make stress: boot the debug kernel (configs/debug.config) of each stage
# with the stress plan for DURATION seconds, and print what each did.
# env: STAGE, DURATION, PANIC_ON_WARN, KASAN (the kasan flavour:
#      configs/kasan.config on top of debug.config), SMP, KDIR, TIMEOUT
#      (scripts/variables)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

check_settings
duration=$(setting DURATION)
append="${APPEND:-} sched_idle.duration=$duration"
[ "$(setting PANIC_ON_WARN)" != 1 ] || append="$append panic_on_warn=1"
flavour=debug
if [ "$(setting KASAN)" = 1 ]; then
	flavour=kasan
	append="$append sched_idle.kasan=1"
fi
export FLAVOUR=$flavour PLAN=stress APPEND=$append
# Boot, lockdep's start-up and the drain after the run take 40-75 s on an
# idle host. The guest's clock runs with the host's, but its loops do not:
# with a second load on the 2 cores a 300 s run once took more than 600 s.
# TIMEOUT= given by the user still wins.
[ -n "${TIMEOUT:-}" ] || export TIMEOUT=$((2 * duration + 300))

run_id=$(date -u +%Y%m%d-%H%M%S)-stress-$$
rc=0
RUN_ID=$run_id "$TOP/scripts/qemu-test.sh" || rc=$?
run=$RESULTS/$run_id
# Every stage that was booted, also those that crashed or hung before
# their KTAP was complete.
while IFS=$'\t' read -r stage dir; do
	result=$dir/result.json
	[ -f "$result" ] || continue
	figures=$(python3 "$TOP/scripts/judge.py" --diagnostics "$result" |
		sed -n 's/^stress: duration=/duration=/p')
	info "stress $stage: ${figures:-no figures}; $(python3 "$TOP/scripts/judge.py" --show "$result" summary)"
done < <(run_boots "$run" stress)
info "stress: results in $run"
exit "$rc"
