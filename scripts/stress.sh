#!/bin/bash
# make stress: boot the debug kernel (configs/debug.config) of each stage
# with the stress plan for DURATION seconds, and print what each did.
# env: STAGE (stages, space-separated; default all), DURATION (s, default
#      300), PANIC_ON_WARN=1 (boot with panic_on_warn), SMP, KDIR, TIMEOUT
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

duration=${DURATION:-300}
case $duration in
"" | *[!0-9]*) die "DURATION=$duration: give seconds, e.g. DURATION=60" ;;
esac
export FLAVOUR=debug PLAN=stress
export APPEND="${APPEND:-} sched_idle.duration=$duration${PANIC_ON_WARN:+ panic_on_warn=1}"
# Boot, lockdep's start-up and the drain after the run, on a busy host.
export TIMEOUT=${TIMEOUT:-$((duration + 300))}

run_id=$(date -u +%Y%m%d-%H%M%S)-stress-$$
rc=0
RUN_ID=$run_id "$TOP/scripts/qemu-test.sh" || rc=$?
run=$RESULTS/$run_id
for log in "$run"/*/stress/ktap.log; do
	[ -f "$log" ] || continue
	stage=$(basename "$(dirname "$(dirname "$log")")")
	figures=$(sed -n 's/^# stress: duration=/duration=/p' "$log")
	info "stress $stage: ${figures:-no figures}; $(cat "$(dirname "$log")/verdict" 2>/dev/null)"
done
exit "$rc"
