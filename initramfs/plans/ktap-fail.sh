# shellcheck shell=sh
# Report one passing and one failing subtest: the host must report a test
# failure, not a pass.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
ktap_begin 2
ktap_ok always_passes
ktap_fail always_fails "this subtest fails on purpose"
ktap_end
