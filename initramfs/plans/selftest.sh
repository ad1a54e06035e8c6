# shellcheck shell=sh
# Run the SCHED_IDLE selftest (tools/testing/selftests/sched, patch 0006
# of the series), which prints its own KTAP.
if [ ! -x /bin/sched_idle_test ]; then
	echo "KTAP version 1"
	echo "1..1"
	echo "not ok 1 selftest # the initramfs has no sched_idle_test"
	exit 1
fi
/bin/sched_idle_test
