#!/bin/bash
# Move $KDIR (prepared by prepare-tree.sh) to STAGE with quilt.
# usage: apply-stage.sh STAGE
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: apply-stage.sh STAGE"
stage=$1
target=$(stage_patch "$stage")

# Every file any patch touches. quilt restores popped files with their old
# mtimes, so make would not see them change; touching them after every move
# is what keeps one object directory correct for all stages.
touched_files()
{
	local patch

	series_patches | while read -r patch _; do
		patch_files "$patch"
	done | sort -u
}

check_patches()
{
	local patch

	series_patches | while read -r patch _; do
		[ -f "$PATCHES/$patch" ] ||
			die "series names $patch, but $PATCHES/$patch does not exist"
	done
}

# quilt says "Hunk #2 FAILED at 6123." after "patching file F"; name both.
push_to()
{
	local out failed

	# No fuzz: a patch that only applies with fuzz no longer describes
	# the tree it is applied to.
	if out=$(cd "$KDIR" && quilt push --fuzz=0 "$1" 2>&1); then
		return 0
	fi
	failed=$(echo "$out" | awk '
		/^patching file / { file = $3 }
		/FAILED|can.t find file|No file to patch/ { print file ": " $0; exit }')
	[ -n "$failed" ] || failed=$(echo "$out" | tail -n1)
	echo "$out" >"$BUILD/logs/quilt-$stage.log"
	die "patch $(cd "$KDIR" && quilt next 2>/dev/null | sed 's|.*/||') does not apply (stage $stage): $failed"
}

# The first applied patch whose file is not what quilt applied (make
# refresh, an edit, a git pull), by the sums recorded at each move; a
# patch with no sum counts as changed. quilt itself would keep the old
# text applied, and every stage from there would build stale code.
first_changed()
{
	local patch

	applied | while read -r patch; do
		if ! grep -qxF "$(sum_of "$patch")" "$SUMS" 2>/dev/null; then
			echo "$patch"
			return
		fi
	done
}

# The applied patches, by name. quilt fails when there are none; a tree
# it cannot read fails the push or pop that follows, by name.
applied()
{
	quilt applied 2>/dev/null | sed 's|.*/||' || true
}

sum_of()
{
	echo "$(sha1sum <"$PATCHES/$1" | cut -d' ' -f1) $1"
}

# The sums of the applied patches, each as quilt applied it. No .pc,
# nothing applied: a tree quilt has never pushed needs none.
record_sums()
{
	local patch

	[ -d .pc ] || return 0
	applied | while read -r patch; do
		sum_of "$patch"
	done >"$SUMS"
}

mkdir -p "$BUILD/logs"
check_patches
cd "$KDIR"
SUMS=.pc/.sched-idle-sums
# quilt remembers the patches folder and series of the first push in .pc
# and prefers them to QUILT_PATCHES and QUILT_SERIES; point it at ours.
if [ -d .pc ]; then
	echo "$PATCHES" >.pc/.quilt_patches
	echo "$SERIES" >.pc/.quilt_series
fi
# A series edited below the applied top (a patch inserted, renamed or
# removed) makes quilt refuse everything: "The series file no longer
# matches the applied patches". Pop them all with the backups in .pc,
# against a series that lists what was applied, and push from there.
if [ -f .pc/applied-patches ] &&
	grep -q 'no longer matches' <<<"$(quilt applied 2>&1 || true)"; then
	info "tree: the series changed below the applied patches; popping them all"
	echo "$PWD/.pc/applied-patches" >.pc/.quilt_series
	quilt pop -a -f -q >/dev/null || die "quilt pop -a of the old series failed in $KDIR"
	echo "$SERIES" >.pc/.quilt_series
	rm -f "$SUMS"
fi
changed=$(first_changed)
if [ -n "$changed" ]; then
	info "tree: $changed changed since it was applied; popping it and the patches above it"
	# Pop it and all above it, each with the text it was applied with;
	# then the sums, so that a push that fails below leaves none stale.
	n=$(applied | awk -v p="$changed" '$0 == p { on = 1 } on { n++ } END { print n }')
	quilt pop -f -q "$n" >/dev/null || die "quilt pop of the changed $changed failed in $KDIR"
	record_sums
fi
# Only quilt changes a tree we manage, so its .pc backups are the truth;
# -f lets a pop succeed after a patch file was edited or removed.
if [ -z "$target" ]; then
	quilt pop -a -f -q >/dev/null 2>&1 || [ $? = 2 ] ||
		die "quilt pop -a failed in $KDIR"
elif applied | grep -qxF "$target"; then
	if [ "$(quilt top | sed 's|.*/||')" != "$target" ]; then
		quilt pop -f -q "$target" >/dev/null ||
			die "quilt pop $target failed in $KDIR"
	fi
else
	push_to "$target"
fi
record_sums
# Touch every file the series touches whose content or mtime differs from
# what the last move left, and no other: a file that every stage shares
# (include/linux/sched/topology.h, which one patch changes and the next
# restores) would otherwise rebuild most of the kernel at every stage,
# for each object directory. quilt 0.66 gives the files it pops and
# pushes a new mtime, but a quilt that restores backups with their old
# mtimes would leave a changed file older than objects built from other
# content; an mtime that moved counts as a change for that reason.
# Without a record of the last move, touch all.
FILES=.pc/.sched-idle-files
# "sum mtime path" of a file, or "absent - path".
file_state()
{
	if [ -e "$1" ]; then
		echo "$(sha1sum <"$1" | cut -d' ' -f1) $(stat -c %Y "$1") $1"
	else
		echo "absent - $1"
	fi
}
# One pass: a file that is touched gets its new mtime in the record.
record=$(touched_files | while read -r f; do
	[ -n "$f" ] || continue
	line=$(file_state "$f")
	if [ "${line%% *}" != absent ] && ! grep -qxF -- "$line" "$FILES" 2>/dev/null; then
		touch "$f"
		line="${line%% *} $(stat -c %Y "$f") $f"
	fi
	echo "$line"
done)
if [ -d .pc ]; then
	echo "$record" >"$FILES"
fi
info "tree: $KDIR at stage $stage${target:+ ($target)}"
