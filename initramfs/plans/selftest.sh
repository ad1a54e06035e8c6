# shellcheck shell=sh
# Run the SCHED_IDLE selftest (tools/testing/selftests/sched, patch 0006
# of the series), which prints its own KTAP.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
need_selftest
hold_tracepoints
/bin/sched_idle_test
