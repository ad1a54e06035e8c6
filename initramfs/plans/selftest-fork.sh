# shellcheck shell=sh
# The SCHED_IDLE selftest in a guest of two LLCs of two CPUs, which
# scripts/lib.sh's plan_smp gives this plan. There the selftest runs only
# its fork group subtest, where the slow path chooses a CPU inside a
# group; the expected matrix's selftest-fork rows judge it.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
need_selftest
hold_tracepoints
/bin/sched_idle_test
