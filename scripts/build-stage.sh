#!/bin/bash
# The one "build it if stale" step: STAGE's kernel of FLAVOUR, unless the
# one in build/kernels/ is current (same patches, same config fragments).
# A stage whose patch touches only tools/ (the selftest) gets a copy of the
# kernel of the stage before it, which is built from the same sources.
# The tree is left at whatever stage the last build needed.
# usage: build-stage.sh STAGE [FLAVOUR]   (flavours: smp nosmp debug kasan)
# Prints "cached", "built" or "copied" on stdout.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: build-stage.sh STAGE [FLAVOUR]"
stage=$1
flavour=${2:-smp}
stage_patch "$stage" >/dev/null
flavour_fragments "$flavour" >/dev/null
if kernel_is_current "$stage" "$flavour"; then
	echo cached
	exit 0
fi
if ! stage_changes_kernel "$stage"; then
	prev=$(stage_names | grep -x -B1 -- "$stage" | head -n1)
	"$TOP/scripts/build-stage.sh" "$prev" "$flavour" >/dev/null
	out=$(kernel_dir "$stage" "$flavour")
	rm -rf "$out.tmp"
	cp -r "$(kernel_dir "$prev" "$flavour")" "$out.tmp"
	sed -i -e "s/^stage=.*/stage=$stage/" \
		-e "s/^source_hash=.*/source_hash=$(stage_source_hash "$stage")/" "$out.tmp/build-info"
	echo "same_kernel_as=$prev" >>"$out.tmp/build-info"
	rm -rf "$out"
	mv "$out.tmp" "$out"
	info "stage $stage changes only tools/: the $flavour kernel of $prev serves it"
	echo copied
	exit 0
fi
# A tree this checkout has prepared stays prepared; apply-stage moves it.
[ -f "$KDIR/.sched-idle-tree" ] || "$TOP/scripts/prepare-tree.sh" >&2
"$TOP/scripts/apply-stage.sh" "$stage" >&2
"$TOP/scripts/build-kernel.sh" "$stage" "$flavour" >&2
echo built
