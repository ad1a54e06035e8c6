#!/bin/bash
# The A/A calibration: boot one stage's kernel CALIBRATE_BOOTS times
# through the measurement's own pipeline (scripts/measure.sh: the same
# plan, windows, analysis and metrics.py), then let scripts/calibrate.py
# split the boots into two labels every way and count how often the
# report's rule declares a difference between them. The newest
# calibration is RESULTS/calibration, which every report quotes.
# usage: calibrate.sh
# env: CALIBRATE_STAGE, CALIBRATE_BOOTS and the measurement's variables
#      (scripts/variables); internal: RUN_ID (name of the results run)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
check_settings
stage=$(setting CALIBRATE_STAGE)
boots=$(setting CALIBRATE_BOOTS)
[ "$(echo "$stage" | wc -w)" = 1 ] || die "CALIBRATE_STAGE=$stage: want one stage"
[ "$boots" -ge 4 ] || die "CALIBRATE_BOOTS=$boots: want 4 or more (two labels of two boots at least)"
run=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)-calibrate}
if [ "$(setting DRY_RUN)" = 1 ]; then
	MEASURE_STAGES=$stage REPEAT=$boots "$TOP/scripts/measure.sh" "$RESULTS/$run"
	exit 0
fi
# The kernel, the initramfs and one smoke boot, as make qemu-test does.
STAGE=$stage MEASURE=0 RUN_ID=$run PLAN=smoke "$TOP/scripts/qemu-test.sh"
rundir=$RESULTS/$run
info "calibration: $boots measurement boots of stage $stage"
take_lock
MEASURE_STAGES=$stage REPEAT=$boots "$TOP/scripts/measure.sh" "$rundir"
python3 "$TOP/scripts/calibrate.py" "$rundir"
ln -sfn "$run" "$RESULTS/calibration"
info "calibration: $rundir/calibration.md (RESULTS/calibration now points there)"
