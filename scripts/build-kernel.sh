#!/bin/bash
# Build the bzImage of the stage $KDIR is at, for one config flavour, into
# build/kernels/FLAVOUR/STAGE/. One object directory per flavour serves all
# stages, so moving between stages rebuilds only what the patches touch.
# usage: build-kernel.sh STAGE [FLAVOUR]   (flavours: smp nosmp debug kasan)
#        build-kernel.sh --config-only OBJDIR [FLAVOUR]
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: build-kernel.sh STAGE [FLAVOUR]"
config_only=""
if [ "$1" = --config-only ]; then
	[ $# -ge 2 ] || die "usage: build-kernel.sh --config-only OBJDIR [FLAVOUR]"
	config_only=$2
	shift
fi
stage=$1
flavour=${2:-smp}
fragments=$(flavour_fragments "$flavour")

obj=${config_only:-$BUILD/obj/$flavour}
gen=$BUILD/obj/$flavour-config
out=$(kernel_dir "$stage" "$flavour")
log=$BUILD/logs/build-$flavour-$stage.log
jobs=$(($(nproc) + 1))
mkdir -p "$obj" "$gen" "$BUILD/logs"

# What the generated .config depends on: the fragments, the kernel
# version, every Kconfig file and config fragment of the tree (a patch
# could change one), the versions of the tools Kconfig probes, and this
# recipe. Hashing them takes well under a second; the three kconfig runs
# take about 15 s, once per stage build and once per lint, for the same
# result every time. A tool that fails to report its version counts as
# such, not as an error.
config_key()
{
	# shellcheck disable=SC2086 # one word per fragment
	{
		cat "$0" $fragments
		grep -E '^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) *=' "$KDIR/Makefile"
		(cd "$KDIR" && find . -path ./.pc -prune -o -type f \
			\( -name 'Kconfig*' -o -path '*/configs/*.config' \) -print0 |
			LC_ALL=C sort -z | xargs -0 sha256sum)
		gcc --version | head -n1
		ld --version | head -n1
		local tool
		for tool in pahole rustc bindgen; do
			! command -v "$tool" >/dev/null ||
				"$tool" --version 2>&1 || echo "$tool: no version"
		done
	} | sha256sum | cut -c1-16
}

# tinyconfig writes .config in place, so generate it elsewhere and copy it
# over only when it differs: an unchanged .config must not force a rebuild.
# A generated .config whose key still matches is used as it is.
make_config()
{
	local key

	key=$(config_key)
	if [ ! -f "$gen/.config" ] || [ "$(cat "$gen/config-key" 2>/dev/null)" != "$key" ]; then
		rm -f "$gen/config-key"
		info "generating the $flavour .config (log: $BUILD/logs/config-$flavour.log)"
		# shellcheck disable=SC2086 # one word per fragment
		{
			kmake -C "$KDIR" O="$gen" tinyconfig &&
			"$KDIR/scripts/kconfig/merge_config.sh" -m -O "$gen" \
				"$gen/.config" $fragments &&
			kmake -C "$KDIR" O="$gen" olddefconfig
		} >"$BUILD/logs/config-$flavour.log" 2>&1 ||
			die "config generation failed (see $BUILD/logs/config-$flavour.log)"
		# shellcheck disable=SC2086
		"$TOP/scripts/check-config.sh" "$gen/.config" $fragments
		echo "$key" >"$gen/config-key"
	fi
	cmp -s "$gen/.config" "$obj/.config" || cp "$gen/.config" "$obj/.config"
}

first_error()
{
	grep -m1 -E ': (fatal )?error:|undefined reference|Error [0-9]+' "$log" ||
		tail -n1 "$log"
}

make_config
[ -z "$config_only" ] || exit 0
info "building $flavour kernel for stage $stage (log: $log)"
if ! kmake -C "$KDIR" O="$obj" -j"$jobs" bzImage >"$log" 2>&1; then
	die "build of stage $stage ($flavour) failed: $(first_error)"
fi
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$obj/System.map" "$out.tmp/"
{
	echo "stage=$stage"
	echo "flavour=$flavour"
	echo "source_hash=$(stage_source_hash "$stage")"
	echo "fragments_hash=$(fragments_hash "$flavour")"
	echo "config_hash=$(sha256sum <"$obj/.config" | cut -c1-16)"
	echo "kernel_release=$(cat "$obj/include/config/kernel.release")"
} >"$out.tmp/build-info"
rm -rf "$out"
mv "$out.tmp" "$out"
