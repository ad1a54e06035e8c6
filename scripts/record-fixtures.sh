#!/bin/bash
# Record the analyser's test fixtures in the guest (plan "fixtures") and
# store them under tests/fixtures/, to be committed. The tests then need
# no boot, and their answers are known from the scenarios' pinning.
# env: STAGE (default pristine)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

stage=${STAGE:-pristine}
kernel_is_current "$stage" smp || die "stage $stage has no current kernel; run make qemu-test"
out=$BUILD/fixtures
"$TOP/scripts/build-initramfs.sh"
STAGE=$stage APPEND="$TRACE_CMDLINE" "$TOP/scripts/run-qemu.sh" "$(kernel_dir "$stage" smp)/bzImage" fixtures "$out"
for s in stack spread; do
	dest=$TOP/tests/fixtures/$s
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$out/guest/$s"/{trace.dat,tasks.txt} "$out/guest/$s"/*.log "$dest/"
done
cp "$out/provenance" "$TOP/tests/fixtures/provenance"
info "fixtures: $TOP/tests/fixtures ($(du -sh "$TOP/tests/fixtures" | cut -f1))"
