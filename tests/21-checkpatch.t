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
t_plan $((${#patches[@]} + 3))
allow=$(grep -v '^#' "$(t_tree_file checkpatch-allow)")
# checkpatch looks for .git in the working directory; run it elsewhere.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seen=""
for p in "${patches[@]}"; do
	cp "$PATCHES/$p" "$tmp/"
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
# do: "[ Upstream commit ID ]" with the full id, the commit's own title as
# subject, its author as From:, and the project's sign-off after the
# adaptation note.
wrong=""
n=0
for p in "${patches[@]}"; do
	head=$(sed '/^---$/q' "$PATCHES/$p")
	id=$(sed -n 's/^\[ Upstream commit \([0-9a-f]*\) \]$/\1/p' <<<"$head")
	[ -n "$id" ] || continue
	n=$((n + 1))
	subject=$(sed -n '/^Subject: /,/^$/p' <<<"$head" | sed '$d' | tr '\n' ' ' |
		sed -E 's/^Subject: (\[PATCH[^]]*\] )?//; s/  */ /g; s/ $//')
	from=$(sed -n 's/^From: //p' <<<"$head" | head -n1)
	[ "${#id}" = 40 ] || wrong="$wrong [$p: id $id is not 40 digits]"
	grep -qxF "${id:0:12} $subject" "$TOP/tests/upstream-commits" ||
		wrong="$wrong [$p: ${id:0:12} \"$subject\" not in tests/upstream-commits]"
	grep -qxF "Signed-off-by: $from" <<<"$head" || wrong="$wrong [$p: From: $from has no sign-off]"
	[[ $from != *example.invalid* ]] || wrong="$wrong [$p: upstream work under the project's name]"
	[ "$(grep '^Signed-off-by:' <<<"$head" | tail -n1)" = "Signed-off-by: sched-idle project <sched-idle@example.invalid>" ] ||
		wrong="$wrong [$p: the adapter's sign-off is not last]"
done
t_is "${wrong:-none}" none "$n re-applied upstream commits credit their author and commit"
