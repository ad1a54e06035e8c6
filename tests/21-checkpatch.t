#!/bin/bash
# checkpatch.pl --strict on every patch: no errors, and no warning or check
# beyond the justified ones in tests/checkpatch-allow, which must all
# still occur.
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
mapfile -t patches < <(series_patches | awk '{ print $1 }')
t_plan $((${#patches[@]} + 1))
allow=$(grep -v '^#' "$TOP/tests/checkpatch-allow")
seen=""
for p in "${patches[@]}"; do
	found=$(cd "$PATCHES" && perl "$KDIR/scripts/checkpatch.pl" --strict --terse \
		--no-summary "$p" 2>&1 | sed -E 's/^([^:]+):[0-9]+: /\1: /')
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
