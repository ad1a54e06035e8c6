#!/bin/bash
# make patches: write the sendable part of the series to build/outgoing/
# with git format-patch, as [PATCH vN k/m] mails after a cover letter that
# carries the measured results. Left out: the LOCAL patches and the
# re-applied upstream commits (the reproduction part), which are merged
# upstream already.
# env: V (version, default 1), RUN (results run, default the newest
#      complete run of the selftest plan),
#      OUTGOING (default build/outgoing)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
check_settings

version=$(setting V)
run=$(setting RUN)
# RUN= names a run in results/ or gives its path.
[ -z "$run" ] || [ -d "$run" ] || run=$RESULTS/$run
out=${OUTGOING:-$BUILD/outgoing}
tree=$(send_tree)
cover=$PATCHES/cover-letter
changes=$PATCHES/changes

# The 6.12 series re-applies upstream work under its authors' names and
# is not for mailing.
[ "$TREE_VERSION" = "${TREES%% *}" ] ||
	die "make patches formats the ${TREES%% *} series; the $TREE_VERSION series is not for mailing"
[ -f "$cover" ] || die "no cover letter text at $cover"
# The unsent patches, and those of them that open the series, read once.
unsent=$(unsent_patches)
lead=$(leading_unsent_patches)
nunsent=$(grep -c . <<<"$unsent" || true)
nlead=$(grep -c . <<<"$lead" || true)
nall=$(series_patches | wc -l)
[ "$nall" -gt "$nunsent" ] || die "the series has nothing to send: every patch is LOCAL or upstream's"
# Only LOCAL measuring aids may sit among the sendable patches: the mails
# would leave an upstream commit out from under the patches after it.
late=$(upstream_patches | grep -vxF -f <(echo "$lead") | head -n1 || true)
[ -z "$late" ] || die "$late re-applies an upstream commit after the first sendable patch; move it up in $SERIES"

# The changes since the previous version, from the "vN:" section.
changelog()
{
	awk -v want="v$version:" '
		/^#/ { next }
		$0 == want { on = 1; next }
		/^v[0-9]+:$/ { on = 0 }
		on' "$changes" 2>/dev/null | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

if [ "$version" -gt 1 ] && [ -z "$(changelog)" ]; then
	die "V=$version needs a 'v$version:' section in $changes"
fi
"$TOP/scripts/deps.sh" send
# The newest complete selftest run, not whatever ran last (a stress run,
# say): the cover letter's table is the selftest's.
newest_selftest_run()
{
	local d

	for d in $(find "$RESULTS" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | sort -r); do
		[ "$(cat "$RESULTS/$d/status" 2>/dev/null)" = complete ] || continue
		[ -n "$(run_boots "$RESULTS/$d" selftest)" ] || continue
		echo "$RESULTS/$d"
		return
	done
}
[ -n "$run" ] || run=$(newest_selftest_run)
[ -n "$run" ] || die "no complete selftest run in $RESULTS; run 'make qemu-test PLAN=selftest' or give RUN="
results=$("$TOP/scripts/cover-results.sh" "$run")

"$TOP/scripts/prepare-send-tree.sh"
mapfile -t names < <(series_patches | awk '{ print $1 }')
mapfile -t commits < <(git -C "$tree" rev-list --reverse base..HEAD)
# The sendable patches start after the unsent ones that open the series,
# or at the tree.
if [ "$nlead" -gt 0 ]; then
	base=${commits[$((nlead - 1))]}
else
	base=$(git -C "$tree" rev-parse base)
fi
# The cover letter says so.
git -C "$tree" diff --quiet base "$base" -- kernel include ||
	die "the mails' base, after $(tail -n1 <<<"$lead"), differs from the packaged tree in kernel/ or include/"

# Replay the sendable patches onto the base without the unsent ones among
# them, in the branch "outgoing". One that needs an unsent patch fails here,
# not on the list. The send tree's own branch is checked out again on any
# exit, so that the next run finds the series where it left it.
restore_branch()
{
	git -C "$tree" cherry-pick --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -f "$branch"
}

outgoing_branch()
{
	local i commit

	trap restore_branch EXIT
	git -C "$tree" checkout -q -B outgoing "$base"
	for i in $(seq "$nlead" $((nall - 1))); do
		grep -qxF "${names[$i]}" <<<"$unsent" && continue
		commit=${commits[$i]}
		# The original's dates keep the ids reproducible.
		GIT_COMMITTER_DATE=$(git -C "$tree" log -1 --format=%cD "$commit") \
			git -C "$tree" cherry-pick "$commit" >/dev/null 2>&1 ||
			die "${names[$i]} does not apply without the unsent patches before it"
	done
	restore_branch
	trap - EXIT
}
branch=$(git -C "$tree" symbolic-ref --short HEAD)
[ "$branch" != outgoing ] || die "$tree is left on branch outgoing; remove $tree to rebuild it"
head=$branch
if [ "$nunsent" -gt "$nlead" ]; then
	outgoing_branch
	head=outgoing
fi

rm -rf "$out.tmp"
git -C "$tree" -c core.abbrev=12 format-patch -q --cover-letter --base="$base" \
	-v"$version" -o "$out.tmp" "$base..$head"
letter=$(ls "$out.tmp"/*0000-cover-letter.patch)

blurb=$out.tmp/blurb
{
	tail -n +3 "$cover"
	echo
	echo "$results"
	echo
	echo "Base: Debian's linux-source-$TREE_VERSION (Linux $(make -s -C "$tree" kernelversion))."
	echo "base-commit below is a commit of this project's tree, not an"
	echo "upstream one. Its kernel/ and include/ are the packaged tree's byte"
	echo "for byte: the project reverts the v5.4/v5.6 SCHED_IDLE work locally"
	echo "and re-applies the upstream commits step by step to measure each, and"
	echo "that ends where the packaged tree is. Merging this needs a rebase onto"
	echo "tip/sched/core first."
	if [ "$version" -gt 1 ]; then
		echo
		echo "Changes in v$version:"
		changelog
	fi
} >"$blurb"
subject=$(head -n1 "$cover")
# Fill git's placeholders; everything else, shortlog and diffstat
# included, stays as format-patch wrote it.
# index/substr and ENVIRON, not sub() and -v: a subject may hold "&" or "\\".
SUBJECT=$subject awk -v blurb="$blurb" '
	(i = index($0, "*** SUBJECT HERE ***")) {
		$0 = substr($0, 1, i - 1) ENVIRON["SUBJECT"] substr($0, i + 20)
	}
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline line < blurb) > 0)
			print line
		next
	}
	{ print }' "$letter" >"$letter.new"
mv "$letter.new" "$letter"
rm "$blurb"

rm -rf "$out"
mv "$out.tmp" "$out"
info "patches: $(find "$out" -name '*.patch' | wc -l) mails for v$version in $out (base $(git -C "$tree" rev-parse --short=12 "$base"))"
