#!/bin/bash
# Make $KDIR a kernel tree of TREE's version with no patch applied (stage
# packaged; apply-stage.sh moves it to pristine and on), ready for quilt.
# The default tree is unpacked from the packaged tarball under build/.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

unpack()
{
	[ -r "$TARBALL" ] || die "no $TARBALL; install linux-source-$TREE_VERSION"
	info "unpacking $TARBALL into $BUILD"
	rm -rf "$DEFAULT_KDIR" "$DEFAULT_KDIR.tmp"
	mkdir -p "$DEFAULT_KDIR.tmp"
	tar -C "$DEFAULT_KDIR.tmp" -xf "$TARBALL" --strip-components=1
	echo "$(basename "$TARBALL") $(sha256sum <"$TARBALL" | cut -c1-16)" \
		>"$DEFAULT_KDIR.tmp/.sched-idle-base"
	# Only a complete unpack gets the real name.
	mv "$DEFAULT_KDIR.tmp" "$DEFAULT_KDIR"
}

check_tree()
{
	local version

	if [ ! -f "$KDIR/Makefile" ] || [ ! -d "$KDIR/kernel/sched" ] ||
	   [ ! -x "$KDIR/scripts/kconfig/merge_config.sh" ]; then
		die "KDIR=$KDIR is not a kernel source tree"
	fi
	version=$(make -s -C "$KDIR" kernelversion 2>/dev/null) ||
		die "KDIR=$KDIR: cannot read the kernel version"
	case $version in
	"$TREE_VERSION" | "$TREE_VERSION".*) ;;
	*) die "KDIR=$KDIR is Linux $version; TREE=$TREE_VERSION takes a $TREE_VERSION.y tree (trees: $TREES)" ;;
	esac
	[ ! -f "$KDIR/.config" ] ||
		die "KDIR=$KDIR has a .config in the source tree; run 'make mrproper' there (builds go to build/)"
}

# Pop every patch of a tree we manage. Our own trees carry a marker;
# quilt state in any other tree belongs to the user and is left alone.
to_pristine()
{
	local applied

	applied=$(cd "$KDIR" && { quilt applied 2>/dev/null || true; })
	[ -n "$applied" ] || return 0
	if [ ! -f "$KDIR/.sched-idle-tree" ]; then
		die "KDIR=$KDIR already has quilt patches applied ($(echo "$applied" | tail -n1)); run 'quilt pop -a' there first"
	fi
	# Only quilt changes a tree we manage, so -f is safe, and it lets a
	# pop succeed after a patch file was edited or removed.
	if (cd "$KDIR" && quilt pop -a -f -q >/dev/null 2>&1); then
		return 0
	fi
	if [ "$KDIR" = "$DEFAULT_KDIR" ]; then
		info "quilt could not pop the old stage; unpacking afresh"
		unpack
		return 0
	fi
	die "KDIR=$KDIR: 'quilt pop -a' failed; restore the tree by hand"
}

mkdir -p "$BUILD"
if [ "$KDIR" = "$DEFAULT_KDIR" ] && [ ! -f "$DEFAULT_KDIR/.sched-idle-base" ]; then
	unpack
fi
[ -d "$KDIR" ] || die "KDIR=$KDIR does not exist"
KDIR=$(cd "$KDIR" && pwd)
check_tree
to_pristine
[ -f "$KDIR/.sched-idle-tree" ] || echo "$TOP" >"$KDIR/.sched-idle-tree"
info "tree: $KDIR as packaged (Linux $(make -s -C "$KDIR" kernelversion))"
