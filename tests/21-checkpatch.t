#!/bin/bash
# checkpatch.pl --strict on every patch: no errors, and no warning or check
# beyond the justified ones in tests/checkpatch-allow (-6.12 for that
# tree), which must all still occur. checkpatch resolves cited commit ids with git, and the packaged
# tree has no upstream history, so UNKNOWN_COMMIT_ID is replaced by a
# check against tests/upstream-commits.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
mapfile -t patches < <(series_patches | awk '{ print $1 }')
t_plan $((${#patches[@]} + 6))
allow=$(grep -v '^#' "$(t_tree_file checkpatch-allow)")
# checkpatch looks for .git in the working directory; run it elsewhere.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seen=""
for p in "${patches[@]}"; do
	# checkpatch reads the stable marker "[ Upstream commit ID ]" as a
	# citation without a title; the check below covers that line.
	sed '/^\[ Upstream commit [0-9a-f]* \]$/d' "$PATCHES/$p" >"$tmp/$p"
	found=$(cd "$tmp" && perl "$KDIR/scripts/checkpatch.pl" --strict --terse \
		--no-summary --ignore UNKNOWN_COMMIT_ID "$p" 2>&1 |
		sed -E 's/^([^:]+):[0-9]+: /\1: /')
	bad=""
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		if grep -qxF -- "$line" <<<"$allow"; then
			seen="$seen$line"$'\n'
		else
			bad="$bad$line"$'\n'
		fi
	done <<<"$found"
	t_is "${bad:-clean}" clean "checkpatch --strict $p"
done
stale=""
while IFS= read -r line; do
	grep -qxF -- "$line" <<<"$seen" || stale="$stale $line"
done <<<"$allow"
t_is "${stale:-none}" none "every allowed finding still occurs (no stale allowances)"

# Every 'commit ID ("TITLE")' in a commit message, titles unwrapped.
cited=$(for p in "${patches[@]}"; do
	sed '/^---$/q' "$PATCHES/$p" | tr '\n' ' ' | sed 's/  */ /g' |
		grep -oE 'commit [0-9a-f]{12} \("[^"]*"\)' | sed 's/^commit //'
done | sort -u)
wrong=""
while IFS= read -r c; do
	id=${c%% *}
	title=${c#* (\"}
	title=${title%\")}
	grep -qxF "$id $title" "$TOP/tests/upstream-commits" || wrong="$wrong [$id $title]"
done <<<"$cited"
t_is "${wrong:-none}" none "$(echo "$cited" | wc -l) cited upstream commits match tests/upstream-commits"

# A patch that re-applies an upstream commit says so as stable backports
# do, and every patch not from the project is one: "[ Upstream commit ID ]"
# with the full id, the commit's own title as subject, its author as From:
# and its author date as Date: (both as tests/upstream-authors records
# them), the upstream sign-off chain with a Link:, then the bracketed
# adaptation note and the project's sign-off last. A patch titled like
# one of those commits must be that re-application, not the project's.
project="sched-idle project <sched-idle@example.invalid>"
authors=$(grep -v '^#' "$TOP/tests/upstream-authors")
# backport_form DIR: what is wrong with the patches of DIR, then "N=count".
backport_form()
{
	local p head id from date tail subject known wrong="" n=0

	for p in "${patches[@]}"; do
		head=$(sed '/^---$/q' "$1/$p")
		id=$(sed -n 's/^\[ Upstream commit \([0-9a-f]*\) \]$/\1/p' <<<"$head")
		from=$(sed -n 's/^From: //p' <<<"$head" | head -n1)
		subject=$(sed -n '/^Subject: /,/^$/p' <<<"$head" | sed '$d' | tr '\n' ' ' |
			sed -E 's/^Subject: (\[PATCH[^]]*\] )?//; s/  */ /g; s/ $//')
		if [ -z "$id" ]; then
			[ "$from" = "$project" ] || wrong="$wrong [$p: From: $from without an upstream commit]"
			known=$(awk -v t="$subject" 'substr($0, 14) == t { print substr($0, 1, 12) }' \
				"$TOP/tests/upstream-commits")
			[ -z "$known" ] || wrong="$wrong [$p: re-applies $known under the project's name]"
			continue
		fi
		n=$((n + 1))
		date=$(sed -n 's/^Date: //p' <<<"$head" | head -n1)
		grep -qxF "$id|$from|$date" <<<"$authors" ||
			wrong="$wrong [$p: From: $from, Date: $date is not $id's author and date in tests/upstream-authors]"
		# The author's sign-off may carry a comment its From: has not,
		# as "Peter Zijlstra (Intel)" does.
		tail=$(awk -v l="Signed-off-by: $from" '
			{ s = $0; sub(/ \([^)]*\) </, " <", s) }
			s == l { on = 1 } on' <<<"$head")
		grep -q '^Link: https://' <<<"$tail" || wrong="$wrong [$p: no upstream Link:]"
		[ "$(grep -c '^\[ sched-idle: ' <<<"$tail")" = 1 ] || wrong="$wrong [$p: no adaptation note after the upstream chain]"
		[ "${#id}" = 40 ] || wrong="$wrong [$p: id $id is not 40 digits]"
		grep -qxF "${id:0:12} $subject" "$TOP/tests/upstream-commits" ||
			wrong="$wrong [$p: ${id:0:12} \"$subject\" not in tests/upstream-commits]"
		[ -n "$tail" ] || wrong="$wrong [$p: From: $from has no sign-off]"
		[ "$(grep '^Signed-off-by:' <<<"$head" | tail -n1)" = "Signed-off-by: $project" ] ||
			wrong="$wrong [$p: the adapter's sign-off is not last]"
	done
	echo "${wrong:-none}"
	echo "N=$n"
}
out=$(backport_form "$PATCHES")
n=$(sed -n 's/^N=//p' <<<"$out")
t_is "$(sed '$d' <<<"$out")" none "$n re-applied upstream commits credit their author and commit"
# Shown able to fail: the first of the project's own patches under
# another author's name, with no upstream commit named.
cp -r "$PATCHES" "$tmp/mutant"
first=$(grep -L '^\[ Upstream commit ' "$PATCHES"/*.patch | head -n1)
first=$(basename "$first")
sed -i '0,/^From: .*/s//From: Someone Else <someone@example.org>/' "$tmp/mutant/$first"
t_like "$(backport_form "$tmp/mutant" | sed '$d')" "\[$first: From: Someone Else <someone@example.org> without an upstream commit\]" \
	"a patch under another author's name without an upstream commit is caught"
# And a re-applied commit sent as the project's own, with its author and
# its "[ Upstream commit ]" line taken away, or under a wrong date.
up=$(grep -l '^\[ Upstream commit ' "$PATCHES"/*.patch | head -n1)
up=$(basename "$up")
cp "$PATCHES/$up" "$tmp/mutant/$up"
sed -i -e '0,/^From: .*/s//From: '"$project"'/' -e '/^\[ Upstream commit /d' "$tmp/mutant/$up"
t_like "$(backport_form "$tmp/mutant" | sed '$d')" "\[$up: re-applies [0-9a-f]{12} under the project's name\]" \
	"a re-applied commit under the project's name is caught"
cp "$PATCHES/$up" "$tmp/mutant/$up"
sed -i '0,/^Date: .*/s//Date: Thu, 3 Dec 2026 00:38:49 +0000/' "$tmp/mutant/$up"
t_like "$(backport_form "$tmp/mutant" | sed '$d')" "\[$up: From: .*, Date: Thu, 3 Dec 2026 00:38:49 \+0000 is not [0-9a-f]{40}'s author and date" \
	"a re-applied commit under a date that is not its author date is caught"
