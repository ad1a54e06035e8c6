#!/bin/bash
# apply-stage.sh touches a file of the series only when a move changed its
# content or moved its mtime: a file every stage shares (a header one
# patch changes and a later one restores) must not be touched, or every
# stage rebuilds what includes it; a file whose mtime went back (a quilt
# that restores old mtimes) must be, or make keeps objects built from
# other content. Runs on a fake tree with a three-patch series.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 7
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tree=$tmp/tree
mkdir -p "$tree/include" "$tree/kernel" "$tmp/patches" "$tmp/build/logs"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n' >"$tree/Makefile"
echo 'int shared;' >"$tree/include/shared.h"
echo 'int code;' >"$tree/kernel/code.c"

# p1 changes both files, p2 only code.c, p3 puts shared.h back.
mkpatch()
{
	local name=$1 file=$2 from=$3 to=$4

	cat >"$tmp/patches/$name" <<EOF
--- a/$file
+++ b/$file
@@ -1 +1 @@
-$from
+$to
EOF
}
mkpatch p1a include/shared.h 'int shared;' 'long shared;'
mkpatch p1b kernel/code.c 'int code;' 'int code1;'
cat "$tmp/patches/p1a" "$tmp/patches/p1b" >"$tmp/patches/0001-one.patch"
mkpatch 0002-two.patch kernel/code.c 'int code1;' 'int code2;'
mkpatch 0003-three.patch include/shared.h 'long shared;' 'int shared;'
printf '0001-one.patch # stage: one\n0002-two.patch # stage: two\n0003-three.patch # stage: three\n' >"$tmp/series"

move()
{
	KDIR=$tree SERIES=$tmp/series PATCHES=$tmp/patches BUILD=$tmp/build \
		"$TOP/scripts/apply-stage.sh" "$1" >"$tmp/out" 2>&1 || t_diag "$(cat "$tmp/out")"
}
# The files whose mtime (to the nanosecond, so that a touch shows within
# the same second) a move to stage $1 changed, by quilt or by a touch.
moved()
{
	local f before after out=""

	before=$(stat -c '%y %n' "$tree/include/shared.h" "$tree/kernel/code.c")
	move "$1"
	after=$(stat -c '%y %n' "$tree/include/shared.h" "$tree/kernel/code.c")
	for f in include/shared.h kernel/code.c; do
		[ "$(grep " $tree/$f\$" <<<"$before")" = "$(grep " $tree/$f\$" <<<"$after")" ] || out="$out $f"
	done
	echo "${out:-none}"
}

move one
t_is "$(cat "$tree/include/shared.h") $(cat "$tree/kernel/code.c")" "long shared; int code1;" "stage one applied"
t_is "$(moved two)" " kernel/code.c" "one -> two: only the file whose content changed is touched"
t_is "$(moved three)" " include/shared.h" "two -> three: the header put back is touched, the unchanged code.c is not"
t_is "$(moved one)" " include/shared.h kernel/code.c" "three -> one (popping): both changed files are touched"
t_is "$(moved one)" "none" "a move to the stage the tree is at touches nothing"
# A quilt that restores a popped file with its old mtime leaves it older
# than objects built from other content: an mtime that went back counts.
touch -d '1 hour ago' "$tree/include/shared.h"
t_is "$(moved one)" " include/shared.h" "a file whose mtime went back, its content unchanged, is touched"
# No record of the last move (a tree set up before it existed): all.
rm -f "$tree/.pc/.sched-idle-files"
t_is "$(moved one)" " include/shared.h kernel/code.c" "without a record of the last move, every file the series touches is touched"
