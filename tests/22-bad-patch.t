#!/bin/bash
# A patch that does not apply, or is missing, fails with one line naming
# the patch and the failing file and hunk; the tree stays recoverable. A
# patch that changes after it was applied (make refresh, an edit) is
# applied again, not left in the tree with its old text.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 11
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
cp -r "$PATCHES" "$tmp/patches"
cp "$SERIES" "$tmp/series"
victim=$(series_patches | awk '$2 == "fallback" { print $1 }')
# Change one context line of the find_idlest_group_cpu() hunk, so that the
# hunk no longer matches the tree.
sed -i "0,/^ \tint i;\$/s// \tint j;/" "$tmp/patches/$victim"

out=$(SERIES=$tmp/series PATCHES=$tmp/patches "$TOP/scripts/apply-stage.sh" fallback 2>&1)
t_ok $(($? == 0)) "a corrupted patch fails the stage"
t_like "$out" "^error: patch $victim does not apply \(stage fallback\): kernel/sched/fair\.c: Hunk #[0-9]+ FAILED" \
	"and names the patch, the file and the hunk"
t_is "$(cd "$KDIR" && quilt top 2>/dev/null | sed 's|.*/||')" "$(series_patches | awk '$2 == "tracking" { print $1 }')" \
	"quilt left the tree at the stage before"

"$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1 &&
	"$TOP/scripts/apply-stage.sh" balance >/dev/null 2>&1
t_ok $? "a re-run with the good series works without clean-up"

rm "$tmp/patches/$victim"
out=$(SERIES=$tmp/series PATCHES=$tmp/patches "$TOP/scripts/apply-stage.sh" fallback 2>&1)
t_ok $(($? == 0)) "a missing patch fails"
t_like "$out" "^error: series names $victim, but .* does not exist$" "and names it"
"$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1

# Applied patches edited in place, as make refresh does: fallback's
# message gains a line (its place in the tree does not move, and the
# patches above it must apply again on top of it), and an added line of
# balance's patch, the top one, gains a comment.
top=$(series_patches | awk '$2 == "balance" { print $1 }')
rm -rf "$tmp/patches"
cp -r "$PATCHES" "$tmp/patches"
at_balance()
{
	SERIES=$tmp/series PATCHES=$tmp/patches "$TOP/scripts/apply-stage.sh" balance 2>&1
}
at_balance >/dev/null
sed -i '0,/^Signed-off-by: /s//Edited after it was applied.\n&/' "$tmp/patches/$victim"
sed -i '0,/^+[^+].*;$/s//& \/* edited after it was applied *\//' "$tmp/patches/$top"
t_is "$(cmp -s "$PATCHES/$victim" "$tmp/patches/$victim" || cmp -s "$PATCHES/$top" "$tmp/patches/$top" || echo both)" \
	both "both applied patches were edited"
rc=0
out=$(at_balance) || rc=$?
t_is "$rc" 0 "the move to balance re-applies them"
[ "$rc" = 0 ] || t_diag "$out"
t_like "$out" "^tree: $victim changed since it was applied; popping it and the patches above it$" \
	"naming the first one that changed"
t_is "$(cd "$KDIR" && quilt top | sed 's|.*/||')" "$top" "the tree is at balance"
rc=0
grep -rqF 'edited after it was applied' "$KDIR/kernel/sched/" || rc=$?
t_ok "$rc" "and holds the new text"
"$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1
