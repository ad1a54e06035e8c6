#!/bin/bash
# make oops-repro and what docs/oops-6.12-pick-eevdf.md rests on: the
# reproducer and the backported fix are checkpatch-clean (the fix but for
# its upstream trailers), the fix applies to the packaged 6.12 tree (stage
# packaged, the reproducer's default), which does not have it, and 6.12's
# pristine has it as a BASE patch; one short oops-repro boot on the 6.1
# packaged kernel (CFS, without the 6.12 code) runs the plan to the end
# and writes its line of oops.tsv with the reproducer's figures.
. "$(dirname "$0")/lib.sh"
t_plan 8
fix=$TOP/patches-6.12/0000-sched-debug-Fix-avg_vruntime-usage.patch
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1 || t_bail "cannot prepare the $TREE_VERSION tree"
k612=$(TREE=6.12 bash -c ". '$TOP/scripts/lib.sh'; echo \"\$DEFAULT_KDIR\"")
TREE=6.12 "$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1 || t_bail "cannot prepare the 6.12 tree"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(cd "$tmp" && perl "$KDIR/scripts/checkpatch.pl" --no-tree --strict --terse \
	--no-summary -f "$TOP/initramfs/repro/eevdf-fork-oops.c" 2>&1)
t_is "${out:-clean}" clean "checkpatch --strict initramfs/repro/eevdf-fork-oops.c"

# Two findings are the upstream commit's own: its Reported-by has no
# Closes:, and its author signs off as "Peter Zijlstra (Intel)". Its ids
# are not in the packaged tree's history, and checkpatch reads the
# stable marker as a citation without a title (as tests/21 does).
sed '/^\[ Upstream commit [0-9a-f]* \]$/d' "$fix" >"$tmp/fix.patch"
out=$(cd "$tmp" && perl "$k612/scripts/checkpatch.pl" --strict --terse --no-summary \
	--ignore UNKNOWN_COMMIT_ID fix.patch 2>&1 | sed -E 's/^[^:]+:[0-9]+: //')
t_is "$out" "WARNING: Reported-by: should be immediately followed by Closes: with a URL to the report
CHECK: From:/Signed-off-by: email comments mismatch: 'From: Peter Zijlstra <peterz@infradead.org>' != 'Signed-off-by: Peter Zijlstra (Intel) <peterz@infradead.org>'" \
	"checkpatch --strict on the backported fix: only its upstream trailers"

# The tarball as shipped (stage packaged) lacks the fix; pristine has it.
TREE=6.12 "$TOP/scripts/apply-stage.sh" packaged >/dev/null 2>&1 || t_bail "cannot put the 6.12 tree at packaged"
out=$(patch -d "$k612" -p1 --dry-run -s <"$fix" 2>&1)
t_ok $? "the fix applies to the packaged 6.12 tree"
[ -z "$out" ] || t_diag "$out"
out=$(patch -d "$k612" -p1 --dry-run -s -R <"$fix" 2>&1)
rc=$?
t_ok $((rc == 0)) "and the packaged tree does not have it"
TREE=6.12 "$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1 || t_bail "cannot put the 6.12 tree at pristine"
out=$(patch -d "$k612" -p1 --dry-run -s -R <"$fix" 2>&1)
t_ok $? "6.12's pristine carries it (BASE in series-6.12)"
[ -z "$out" ] || t_diag "$out"

rc=0
out=$(OOPS_BOOTS=1 OOPS_DURATION=10 "$TOP/scripts/oops-repro.sh" 2>&1) || rc=$?
t_is "$rc" 0 "make oops-repro OOPS_BOOTS=1 OOPS_DURATION=10 on 6.1's packaged kernel: exit 0"
[ "$rc" = 0 ] || t_diag "$out"
table=$(sed -n 's/^info: oops-repro: //p; s/^oops-repro: //p' <<<"$out" | tail -n1)
line=$(tail -n +2 "$table" 2>/dev/null | cut -f2-)
t_like "$line" $'^packaged\t1\tpass\t-\trounds=[0-9]+ forks=[1-9][0-9]* settled=[0-9]+ exited_on_cpu0-3=[0-9]+,[0-9]+,[0-9]+,[0-9]+$' \
	"oops.tsv: one boot, passed, with the reproducer's figures"
[ -n "$line" ] || t_diag "no table in: $out"
tree=$(tail -n +2 "$table" 2>/dev/null | cut -f1)
t_like "$tree" '^linux-source-6\.1\.tar\.xz [0-9a-f]+$' "oops.tsv names the tree the kernel came from"
