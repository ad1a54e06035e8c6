#!/bin/bash
# An interactive guest on STAGE (default pristine), for debugging: the
# same kernel, initramfs and QEMU command line as the tests (lib.sh's
# qemu_command), with the console on stdio. DRY_RUN=1 prints the command.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

check_settings
stage=$(setting STAGE)
stage=${stage:-pristine}
[ "$(echo "$stage" | wc -w)" = 1 ] || bad_value STAGE "$stage" "make shell boots one stage"
flavour=${FLAVOUR:-smp}
smp=$(smp_string "$(setting SMP)")
share=$BUILD/shell
kernel=$(kernel_dir "$stage" "$flavour")/bzImage
cmdline=$(guest_cmdline shell "$stage" "$smp")
if [ "$(setting DRY_RUN)" = 1 ]; then
	qemu_command "${ACCEL:-tcg,thread=multi}" "$smp" "$kernel" "$cmdline" mon:stdio "$share"
	dry_run_accel_note
	echo "${QEMU_CMD[*]@Q}"
	exit 0
fi
take_lock
"$TOP/scripts/deps.sh" run
"$TOP/scripts/build-stage.sh" "$stage" "$flavour" >/dev/null
"$TOP/scripts/build-initramfs.sh"
mkdir -p "$share"
qemu_command "$(probe_accel "$kernel")" "$smp" "$kernel" "$cmdline" mon:stdio "$share"
info "stage $stage, -smp $smp, /results is $share; leave with 'poweroff -f' or Ctrl-A x"
exec "${QEMU_CMD[@]}"
