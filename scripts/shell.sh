#!/bin/bash
# An interactive guest on STAGE (default pristine), for debugging: the
# same kernel and initramfs as the tests, with the console on stdio.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

stage=${STAGE:-pristine}
flavour=${FLAVOUR:-smp}
take_lock
"$TOP/scripts/deps.sh" run
"$TOP/scripts/prepare-tree.sh"
if ! kernel_is_current "$stage" "$flavour"; then
	"$TOP/scripts/apply-stage.sh" "$stage"
	"$TOP/scripts/build-kernel.sh" "$stage" "$flavour"
fi
"$TOP/scripts/build-initramfs.sh"
smp=${SMP:-4}
case $smp in *=*) ;; *) smp="$smp,sockets=1,cores=$smp,threads=1" ;; esac
share=$BUILD/shell
mkdir -p "$share"
info "stage $stage, -smp $smp, /results is $share; leave with 'poweroff -f' or Ctrl-A x"
exec qemu-system-x86_64 -accel "${ACCEL:-tcg,thread=multi}" -M q35 -cpu max \
	-m "${MEM:-1G}" -smp "$smp" \
	-kernel "$(kernel_dir "$stage" "$flavour")/bzImage" \
	-initrd "$BUILD/initramfs.cpio.gz" -nodefaults -display none \
	-no-reboot -nic none -serial mon:stdio \
	-virtfs "local,path=$share,mount_tag=results,security_model=none,id=results" \
	-append "console=ttyS0 loglevel=5 panic=-1 oops=panic sched_idle.plan=shell sched_idle.stage=$stage"
