#!/bin/bash
# make tree / make refresh: the git tree has one commit per patch, a
# refresh without edits changes nothing byte for byte, and an edit to one
# commit rewrites only that patch.
# Not in the quick tier: the git import of the whole tree takes 1.5 min.
. "$(dirname "$0")/lib.sh"
t_plan 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$PATCHES" "$tmp/patches"
export GIT_TREE=$tmp/tree PATCHES=$tmp/patches

out=$("$TOP/scripts/make-tree.sh" 2>&1)
t_ok $? "make tree"
[ -d "$GIT_TREE/.git" ] || t_diag "$out"
t_is "$(git -C "$GIT_TREE" rev-list --count base..HEAD)" "$(series_patches | wc -l)" \
	"one commit per patch"

out=$("$TOP/scripts/refresh-patches.sh" 2>&1)
t_like "$out" "refresh: 0 of [0-9]+ patches changed" "refresh without edits changes nothing"
t_ok "$(diff -r "$TOP/patches" "$PATCHES" >/dev/null; echo $?)" "patches are byte-identical after the round trip"

# Reword the last commit; only its patch may change.
git -C "$GIT_TREE" commit -q --amend -m "$(git -C "$GIT_TREE" log -1 --format=%B | sed '1s/$/ (reworded)/')"
"$TOP/scripts/refresh-patches.sh" >/dev/null 2>&1
changed=$(diff -rq "$TOP/patches" "$PATCHES" | wc -l)
last=$(series_patches | tail -n1 | awk '{ print $1 }')
t_is "$changed $(diff -q "$TOP/patches/$last" "$PATCHES/$last" >/dev/null || echo last)" "1 last" \
	"an edited commit refreshes only its own patch"
