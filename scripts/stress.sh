#!/bin/bash
# make stress: boot the debug kernel (configs/debug.config) of each stage
# with the stress plan for DURATION seconds, and print what each did.
# env: STAGE (stages, space-separated; default all), DURATION (s, default
#      300), PANIC_ON_WARN=1 (boot with panic_on_warn), KASAN=1 (the kasan
#      flavour: configs/kasan.config on top of debug.config), SMP, KDIR,
#      TIMEOUT
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

duration=${DURATION:-300}
case $duration in
"" | *[!0-9]*) die "DURATION=$duration: give seconds, e.g. DURATION=60" ;;
esac
append="${APPEND:-} sched_idle.duration=$duration"
[ "${PANIC_ON_WARN:-0}" != 1 ] || append="$append panic_on_warn=1"
flavour=debug
if [ "${KASAN:-0}" = 1 ]; then
	flavour=kasan
	append="$append sched_idle.kasan=1"
fi
export FLAVOUR=$flavour PLAN=stress APPEND=$append
# Boot, lockdep's start-up and the drain after the run take 40-75 s on an
# idle host. The guest's clock runs with the host's, but its loops do not:
# with a second load on the 2 cores a 300 s run once took more than 600 s.
export TIMEOUT=${TIMEOUT:-$((2 * duration + 300))}

run_id=$(date -u +%Y%m%d-%H%M%S)-stress-$$
rc=0
RUN_ID=$run_id "$TOP/scripts/qemu-test.sh" || rc=$?
run=$RESULTS/$run_id
# Every stage that was booted, also those that crashed or hung before
# their KTAP was complete.
for dir in "$run"/*/stress; do
	[ -d "$dir" ] || continue
	stage=$(basename "$(dirname "$dir")")
	figures=$(sed -n 's/^# stress: duration=/duration=/p' "$dir/ktap.log" 2>/dev/null)
	info "stress $stage: ${figures:-no figures}; $(cat "$dir/verdict" 2>/dev/null || echo "no verdict")"
done
info "stress: results in $run"
exit "$rc"
