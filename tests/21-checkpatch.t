#!/bin/bash
# checkpatch.pl --strict on every patch: no errors, and no warning or check
# beyond the justified ones in tests/checkpatch-allow, which must all still
# occur. checkpatch resolves cited commit ids with git, and the packaged
# tree has no upstream history, so UNKNOWN_COMMIT_ID is replaced by a
# check against tests/upstream-commits.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
mapfile -t patches < <(series_patches | awk '{ print $1 }')
t_plan $((${#patches[@]} + 2))
allow=$(grep -v '^#' "$TOP/tests/checkpatch-allow")
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
