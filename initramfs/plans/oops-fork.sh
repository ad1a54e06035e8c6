# shellcheck shell=sh
# Reproducer plan for the pick_task_fair() NULL dereference of 6.12.y
# (docs/oops-6.12-pick-eevdf.md): /bin/eevdf-fork-oops forks among 22
# SCHED_IDLE spinners for sched_idle.duration seconds. A kernel that
# survives passes; one that oopses ends the boot, and the host judges it
# a kernel failure (exit class 2) by the splat on the console.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh

DURATION=$(cmdline_arg duration)
need_arg duration "$DURATION"

ktap_begin 1
if [ ! -x /bin/eevdf-fork-oops ]; then
	ktap_fail eevdf_fork "the initramfs has no eevdf-fork-oops"
	exit 1
fi
out=$(/bin/eevdf-fork-oops "$DURATION" 2>&1)
rc=$?
out=$(echo "$out" | tr '\n' ' ' | sed 's/ *$//')
# What it did, whatever the result: rounds, forks, forks after a settle
# and the CPUs the children exited on. The plan's guest always has the
# four CPUs it needs, so that its exit 2 (cannot run here) is a failure.
ktap_diag "eevdf_fork: $out"
if [ "$rc" = 0 ]; then
	ktap_ok eevdf_fork
else
	ktap_fail eevdf_fork "exit $rc: $out"
fi
ktap_end
