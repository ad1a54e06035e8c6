# shellcheck shell=sh
# Pass every subtest but leave a kernel splat in the console, which the host
# must still report as a kernel failure.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
ktap_begin 1
echo "WARNING: CPU: 0 PID: 1 at plans/warn.sh:1 synthetic splat" >/dev/kmsg
ktap_ok splat_written
ktap_end
