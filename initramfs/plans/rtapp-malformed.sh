# shellcheck shell=sh
# Feed rt-app a malformed workload on purpose: the host must report a test
# failure that carries rt-app's own message.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh

check_malformed()
{
	printf '{ "tasks" : { "t" : { "run" : 1000, } }\n' >/tmp/malformed.json
	run_rtapp /tmp/malformed.json /tmp/malformed.out
}

ktap_begin 1
ktap_check malformed_workload check_malformed
ktap_end
