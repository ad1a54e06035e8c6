#!/bin/bash
# make patches: write one series of mails to build/outgoing*/ with git
# format-patch, as [PATCH vN k/m] after a cover letter that carries the
# measured results. Which series is PART's (scripts/variables):
#   new:   the selftest and the SIS_UTIL fix, from the 6.12 series, on the
#          packaged tree with the upstream commits before them as
#          prerequisites (git's prerequisite-patch-id);
#   repro: the upstream commits the series re-applies, on the packaged
#          tree with the project's LOCAL revert of them.
# LOCAL patches are never mailed; a LOCAL measuring aid among the mails is
# left out by replaying the mails without it.
# env: PART, V (version, default 1), RUN (results run, default the newest
#      complete run of the selftest plan), OUTGOING (default
#      build/outgoing, or build/outgoing-repro for PART=repro)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
mail_tree "$@"
check_settings

part=$(setting PART)
version=$(setting V)
run=$(setting RUN)
# RUN= names a run in results/ or gives its path.
[ -z "$run" ] || [ -d "$run" ] || run=$RESULTS/$run
out=$(outgoing_dir)
tree=$(send_tree)
cover=$PATCHES/cover-letter$(part_suffix)
changes=$PATCHES/changes$(part_suffix)

[ -f "$cover" ] || die "no cover letter text for PART=$part at $cover"
mapfile -t names < <(series_patches | awk '{ print $1 }')
mailed=$(mailed_patches)
[ -n "$mailed" ] || die "the $TREE_VERSION series has no patch for PART=$part"
locals=$(local_patches)
# Series positions (0-based) of the first and the last mail.
first="" last=""
for i in "${!names[@]}"; do
	grep -qxF "${names[$i]}" <<<"$mailed" || continue
	[ -n "$first" ] || first=$i
	last=$i
done
# Among the mails, only LOCAL measuring aids may be left out: the mails
# would leave anything else out from under the patches after it.
for i in $(seq "$first" "$last"); do
	p=${names[$i]}
	grep -qxF "$p" <<<"$mailed" || grep -qxF "$p" <<<"$locals" ||
		die "$p lies among the PART=$part mails but is not one of them; move it in $SERIES"
done

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
[ -n "$run" ] || die "no complete selftest run in $RESULTS; run 'make qemu-test${TREE:+ TREE=$TREE} PLAN=selftest' or give RUN="
results=$("$TOP/scripts/cover-results.sh" "$run")

"$TOP/scripts/prepare-send-tree.sh"
mapfile -t commits < <(git -C "$tree" rev-list --reverse base..HEAD)
[ "${#commits[@]}" = "${#names[@]}" ] ||
	die "$tree has ${#commits[@]} commits for ${#names[@]} patches; remove it to rebuild it"
# The commit after patch $1 (0-based), or the packaged tree for -1.
after()
{
	if [ "$1" -lt 0 ]; then
		git -C "$tree" rev-parse base
	else
		echo "${commits[$1]}"
	fi
}

# The BASE fixes open the series; packaged is the commit after them.
bases=$(base_patches)
nbase=$(grep -c . <<<"$bases" || true)
[ "$(printf '%s\n' "${names[@]:0:nbase}")" = "$bases" ] ||
	die "the BASE patches must open $SERIES: $(paste -sd ' ' <<<"$bases")"
packaged=$(after $((nbase - 1)))

# bottom: the commit the first mail applies to. base: the commit the
# cover letter names as base-commit. For new, that is the newest commit
# before the mails whose kernel/ and include/ are the packaged tree's
# with its BASE fixes; the upstream commits between it and the mails are
# their prerequisites.
bottom=$(after $((first - 1)))
base=$bottom
prereqs=()
if [ "$part" = new ]; then
	upstream=$(upstream_patches)
	i=$((first - 1))
	while ! git -C "$tree" diff --quiet "$packaged" "$(after "$i")" -- kernel include; do
		grep -qxF "${names[$i]}" <<<"$upstream" ||
			die "${names[$i]}, before the mails, leaves kernel/ or include/ unlike the packaged tree and is not an upstream commit"
		prereqs=("${commits[$i]}" "${prereqs[@]}")
		i=$((i - 1))
	done
	base=$(after "$i")
fi

# Replay the mails onto bottom without the LOCAL aids among and after them,
# in the branch "outgoing". One that needs a LOCAL aid fails here, not on
# the list. The send tree's own branch is checked out again on any exit,
# so that the next run finds the series where it left it.
restore_branch()
{
	git -C "$tree" cherry-pick --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -f "$branch"
}

outgoing_branch()
{
	local i commit

	trap restore_branch EXIT
	git -C "$tree" checkout -q -B outgoing "$bottom"
	for i in $(seq "$first" "$last"); do
		grep -qxF "${names[$i]}" <<<"$mailed" || continue
		commit=${commits[$i]}
		# The original's dates keep the ids reproducible.
		GIT_COMMITTER_DATE=$(git -C "$tree" log -1 --format=%cD "$commit") \
			git -C "$tree" cherry-pick "$commit" >/dev/null 2>&1 ||
			die "${names[$i]} does not apply without the LOCAL patches before it"
	done
	restore_branch
	trap - EXIT
}
branch=$(git -C "$tree" symbolic-ref --short HEAD)
[ "$branch" != outgoing ] || die "$tree is left on branch outgoing; remove $tree to rebuild it"
head=${commits[$last]}
if [ "$(grep -c . <<<"$mailed")" -lt $((last - first + 1)) ]; then
	outgoing_branch
	head=outgoing
fi

rm -rf "$out.tmp"
git -C "$tree" -c core.abbrev=12 format-patch -q --cover-letter --base="$base" \
	-v"$version" -o "$out.tmp" "$bottom..$head"
letter=$(ls "$out.tmp"/*0000-cover-letter.patch)

kernelversion=$(make -s -C "$tree" kernelversion)
blurb=$out.tmp/blurb
{
	tail -n +3 "$cover"
	echo
	echo "$results"
	echo
	if [ "$part" = new ]; then
		echo "Base: Debian's linux-source-$TREE_VERSION (Linux $kernelversion)."
		echo "base-commit below is a commit of this project's tree, not an"
		echo "upstream one. Its kernel/ and include/ are the packaged tree's byte"
		echo "for byte${bases:+, with the mainline fixes listed below}: the project"
		echo "reverts the v5.4/v5.6 SCHED_IDLE work locally and re-applies the"
		echo "upstream commits step by step to measure each, and that ends where"
		echo "the packaged tree is."
		if [ ${#prereqs[@]} -gt 0 ]; then
			echo "The series needs upstream work the packaged tree lacks. The"
			echo "prerequisite-patch-id lines are the patch ids of this project's"
			echo "backport of it, which differs from the upstream patch in context:"
			for c in "${prereqs[@]}"; do
				id=$(git -C "$tree" log -1 --format=%b "$c" |
					sed -n 's/^\[ Upstream commit \([0-9a-f]\{12\}\)[0-9a-f]* \]$/\1/p')
				echo "  $id (\"$(git -C "$tree" log -1 --format=%s "$c")\")"
			done
		fi
	else
		echo "Base: Debian's linux-source-$TREE_VERSION (Linux $kernelversion) with"
		echo "this project's LOCAL revert of the v5.4/v5.6 SCHED_IDLE work, so that"
		echo "each commit is built and measured on its own. base-commit below is"
		echo "that commit of the project's tree. The commits are upstream already:"
		echo "these mails are for review of the reproduction, not for merging."
	fi
	if [ -n "$bases" ]; then
		echo "Every kernel measured, the base included, carries the mainline"
		echo "fixes the packaged tree lacks (BASE in the project's series):"
		for p in $bases; do
			id=$(sed -n 's/^\[ Upstream commit \([0-9a-f]\{12\}\)[0-9a-f]* \]$/\1/p' "$PATCHES/$p")
			echo "  ${id:-(not upstream)} (\"$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$PATCHES/$p")\")"
		done
	fi
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
info "patches: $(find "$out" -name '*.patch' | wc -l) mails of PART=$part v$version from the $TREE_VERSION series in $out (base $(git -C "$tree" rev-parse --short=12 "$base"))"
