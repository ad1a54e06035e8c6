#!/bin/bash
# Write the commits of build/tree (base..HEAD) back into patches/, one per
# series entry, in order. A patch whose content did not change is left
# alone, so that refreshing never churns the unchanged ones.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
check_settings

tree=${GIT_TREE:-$BUILD/tree}
[ -d "$tree/.git" ] || die "no git tree at $tree; run 'make tree' first"
mapfile -t names < <(series_patches | awk '{ print $1 }')
count=$(git -C "$tree" rev-list --count base..HEAD)
if [ "$count" != "${#names[@]}" ]; then
	die "$tree has $count commits but series lists ${#names[@]} patches; add or remove the series entry first"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Abbreviated ids would otherwise grow with the object count.
git -C "$tree" -c core.abbrev=12 format-patch -q --no-signature --zero-commit -N --notes \
	-o "$out" base..HEAD
i=0
changed=0
for new in "$out"/*.patch; do
	name=${names[$i]}
	if ! cmp -s "$new" "$PATCHES/$name"; then
		cp "$new" "$PATCHES/$name"
		info "refreshed $name"
		changed=$((changed + 1))
	fi
	i=$((i + 1))
done
info "refresh: $changed of $count patches changed"
