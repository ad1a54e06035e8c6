#!/bin/bash
# smp_topology reads an SMP= string the way QEMU does, so that the guest's
# CPU check (initramfs/init, the smoke plan) expects what QEMU will give:
# dies and clusters multiply the count but not the packages, cpus= and
# maxcpus= win over the product, missing values are derived from them,
# and CPUs left offline leave their packages empty. The oracle is QEMU
# itself, started paused: its monitor lists the CPUs it created.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 16

# qemu_topology SMP: cpus,sockets,threads of the machine QEMU builds.
qemu_topology()
{
	printf 'info cpus\ninfo hotpluggable-cpus\nquit\n' |
		timeout 60 qemu-system-x86_64 -M q35 -accel tcg -smp "$1" -S \
			-display none -monitor stdio -nodefaults -nic none 2>&1 |
		tr -d '\r' | awk '
			/CPU #[0-9]+:/ { cpus++ }
			/qom_path:/ { present = 1 }
			/socket-id:/ { gsub(/"/, ""); sock = $2 }
			/thread-id:/ {
				gsub(/"/, "")
				if (present) { s[sock] = 1; if ($2 + 1 > t) t = $2 + 1 }
				present = 0
			}
			END { n = 0; for (k in s) n++; printf "%d,%d,%d\n", cpus, n, t }'
}

for smp in 4,sockets=1,cores=4,threads=1 cpus=4,sockets=1,dies=2,cores=2,threads=1 \
	sockets=2,dies=2,cores=2 sockets=1,cores=2,threads=2 \
	6,maxcpus=8,sockets=2,cores=4 maxcpus=8,sockets=2,cores=4 4,sockets=2 \
	8,cores=4 4,cores=2 maxcpus=8,cores=4 8,sockets=2,cores=2 \
	3,maxcpus=8,sockets=2,cores=4; do
	t_is "$(smp_topology "$smp" 2>&1)" "$(qemu_topology "$smp")" \
		"SMP=$smp: cpus,sockets,threads as QEMU builds them"
done
# QEMU 7.2's x86 machines refuse clusters=, so no oracle here; later ones
# take them, inside a die.
t_is "$(smp_topology clusters=2,cores=2 2>&1)" 4,1,1 "clusters multiply the count, not the packages"
t_like "$(smp_topology 4,cores=two 2>&1)" "^error: SMP=4,cores=two: 'cores=two' is not a count$" \
	"a value that is not a count is refused"
t_like "$(smp_topology 4,books=2 2>&1)" "^error: SMP=4,books=2: unknown key 'books'$" \
	"a key QEMU's x86 machines do not know is refused"
# shellcheck disable=SC2016 # the $(id) must reach smp_topology unexpanded
t_like "$(smp_topology '4,cores=a[$(id)]' 2>&1)" "is not a count" \
	"a value is never evaluated as arithmetic"
