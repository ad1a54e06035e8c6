#!/bin/bash
# Build the guest initramfs from initramfs/ with the kernel's own
# usr/gen_init_cpio: no root-owned staging tree, ownership comes from the
# list. Output: build/initramfs.cpio.gz
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/initramfs.cpio.gz
list=$BUILD/initramfs.list
tool=$BUILD/tools/gen_init_cpio
# Dynamically linked host programs the plans run; their libraries come too.
host_bins="/usr/bin/rt-app /usr/bin/hackbench /usr/bin/chrt /usr/bin/taskset /usr/bin/trace-cmd ${EXTRA_BINS:-}"
# The selftest, once scripts/build-selftest.sh has built it.
selftest=$BUILD/selftest/sched/sched_idle_test
[ ! -x "$selftest" ] || host_bins="$host_bins $selftest"
# The project's own guest programs (initramfs/repro/), static like the
# selftest, so that they need no library from the host.
mkdir -p "$BUILD/repro"
for src in "$TOP"/initramfs/repro/*.c; do
	bin=$BUILD/repro/$(basename "$src" .c)
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		cc -static -O2 -Wall -Wextra -Werror -o "$bin" "$src" ||
			die "cannot build $src for the initramfs"
	fi
	host_bins="$host_bins $bin"
done

"$TOP/scripts/check-workloads.sh" "$TOP"/initramfs/workloads/*.json
[ -f "$KDIR/usr/gen_init_cpio.c" ] || die "no usr/gen_init_cpio.c in KDIR=$KDIR"
mkdir -p "$BUILD/tools"
if [ ! -x "$tool" ] || [ "$KDIR/usr/gen_init_cpio.c" -nt "$tool" ]; then
	cc -O2 -o "$tool" "$KDIR/usr/gen_init_cpio.c"
fi
busybox=/bin/busybox
# ldd refuses static programs.
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is not static; install busybox-static"
fi

# Shared objects a program needs, as absolute paths.
libs_of()
{
	# ldd fails on static programs, which need nothing.
	{ ldd "$1" 2>/dev/null || true; } |
		awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}

# "DEST SRC MODE" for every file, DEST being the path in the guest.
files()
{
	local f bin

	echo "/init $TOP/initramfs/init 0755"
	echo "/bin/busybox $busybox 0755"
	for f in "$TOP"/initramfs/lib/* "$TOP"/initramfs/plans/* \
		 "$TOP"/initramfs/workloads/*; do
		echo "/${f#"$TOP"/initramfs/} $f 0644"
	done
	for bin in $host_bins; do
		[ -x "$bin" ] || die "missing $bin for the initramfs"
		echo "/bin/${bin##*/} $bin 0755"
		libs_of "$bin"
	done | while read -r f; do
		echo "$f $(readlink -f "$f") 0755"
	done
	# glibc dlopen()s it for pthread_exit(), so ldd does not list it.
	f=$(gcc -print-file-name=libgcc_s.so.1)
	echo "/lib/x86_64-linux-gnu/libgcc_s.so.1 $(readlink -f "$f") 0755"
}

# Parents before children, each directory once.
dirs()
{
	awk '{ print $1 }' | while read -r f; do
		f=${f%/*}
		while [ -n "$f" ]; do
			echo "$f"
			f=${f%/*}
		done
	done
}

gen_list()
{
	local entries

	entries=$(files | sort -u -k1,1)
	{
		echo "/bin"; echo "/dev"; echo "/proc"; echo "/sys"; echo "/tmp"
		echo "/results"; echo "/lib"; echo "/lib64"
		echo "$entries" | dirs
	} | sort -u | awk '{ print "dir " $1 " 0755 0 0" }'
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "$entries" | awk '{ print "file " $1 " " $2 " " $3 " 0 0" }'
	"$busybox" --list | grep -vxE 'busybox|chrt|taskset|init' |
		awk '{ print "slink /bin/" $1 " busybox 0777 0 0" }'
}

gen_list >"$list.tmp"
"$tool" "$list.tmp" | gzip -9n >"$out.tmp"
mv "$list.tmp" "$list"
mv "$out.tmp" "$out"
info "initramfs: $out ($(du -h "$out" | cut -f1))"
