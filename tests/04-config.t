#!/bin/bash
# check-config.sh fails, naming the option, when the final .config lacks
# something a fragment asks for; later fragments override earlier ones;
# "is not set" and "=n" compare equal.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'CONFIG_SMP=y\nCONFIG_SCHED_MC=y\n# CONFIG_KASAN is not set\nCONFIG_NR_CPUS=64\n' >"$tmp/.config"
printf 'CONFIG_SMP=y\nCONFIG_NR_CPUS=64\nCONFIG_KASAN=n\n' >"$tmp/ok.config"
printf 'CONFIG_SMP=y\nCONFIG_SCHEDSTATS=y\nCONFIG_NR_CPUS=8\n' >"$tmp/bad.config"
printf '# CONFIG_SMP is not set\n' >"$tmp/nosmp.config"

"$TOP/scripts/check-config.sh" "$tmp/.config" "$tmp/ok.config" 2>/dev/null
t_ok $? "a .config that has everything passes"
out=$("$TOP/scripts/check-config.sh" "$tmp/.config" "$tmp/bad.config" 2>&1)
t_ok $(($? == 0)) "a missing option fails"
t_like "$out" "^error: .* lacks requested options: CONFIG_NR_CPUS=8 \(got 64\) CONFIG_SCHEDSTATS=y \(got n\) $" \
	"and names every missing option with what it got"
out=$("$TOP/scripts/check-config.sh" "$tmp/.config" "$tmp/ok.config" "$tmp/nosmp.config" 2>&1)
t_like "$out" "CONFIG_SMP=n \(got y\)" "a later fragment overrides an earlier one"
missing=""
for opt in SMP SCHED_MC CGROUPS FAIR_GROUP_SCHED CFS_BANDWIDTH SCHED_DEBUG SCHEDSTATS \
	   DEBUG_FS FTRACE EVENT_TRACING HIGH_RES_TIMERS NO_HZ_IDLE HOTPLUG_CPU \
	   SERIAL_8250_CONSOLE BLK_DEV_INITRD DEVTMPFS 9P_FS NET_9P_VIRTIO; do
	grep -qx "CONFIG_$opt=y" "$TOP/configs/sched-idle.config" || missing="$missing $opt"
done
t_is "${missing:-none}" none "the stage fragment asks for every option the pipeline needs"
