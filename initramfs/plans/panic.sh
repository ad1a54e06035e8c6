# shellcheck shell=sh
# Crash the kernel on purpose: the host must report a kernel failure.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
ktap_begin 1
echo c >/proc/sysrq-trigger
ktap_ok unreachable
