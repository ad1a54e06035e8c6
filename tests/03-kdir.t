#!/bin/bash
# A KDIR that is not a tree of TREE's version, or that carries someone
# else's quilt patches, is refused with one line that names the cause; a
# KDIR of the other tree picks that tree's series.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 9
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(KDIR=$tmp/none "$TOP/scripts/prepare-tree.sh" 2>&1)
t_ok $(($? == 0)) "missing KDIR fails"
t_like "$out" "^error: KDIR=$tmp/none does not exist$" "missing KDIR: one-line cause"

mkdir -p "$tmp/empty"
out=$(KDIR=$tmp/empty "$TOP/scripts/prepare-tree.sh" 2>&1)
t_like "$out" "^error: KDIR=$tmp/empty is not a kernel source tree$" "not a kernel tree: one-line cause"

# A tree-shaped directory whose Makefile says 5.10.
fake=$tmp/fake
mkdir -p "$fake/kernel/sched" "$fake/scripts/kconfig"
printf '#!/bin/sh\n' >"$fake/scripts/kconfig/merge_config.sh"
chmod +x "$fake/scripts/kconfig/merge_config.sh"
printf 'kernelversion:\n\t@echo 5.10.0\n' >"$fake/Makefile"
out=$(KDIR=$fake "$TOP/scripts/prepare-tree.sh" 2>&1)
t_like "$out" "^error: KDIR=$fake is Linux 5.10.0; TREE=6.1 takes a 6.1.y tree \\(trees: 6.1 6.12\\)$" "wrong version: one-line cause"

# The same at 6.1 with a foreign quilt stack applied.
printf 'kernelversion:\n\t@echo 6.1.192\n' >"$fake/Makefile"
mkdir -p "$fake/patches"
echo "x" >"$fake/a"
printf -- '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n' >"$fake/patches/foreign.patch"
echo foreign.patch >"$fake/patches/series"
(cd "$fake" && QUILT_PATCHES=patches QUILT_SERIES=patches/series quilt push -q >/dev/null 2>&1)
out=$(KDIR=$fake "$TOP/scripts/prepare-tree.sh" 2>&1)
t_like "$out" "^error: KDIR=$fake already has quilt patches applied" "series already applied: one-line cause"
t_is "$(cat "$fake/a")" "y" "the user's tree is left as it was"

# A 6.12 tree picks the 6.12 series, unless TREE says otherwise.
f612=$tmp/f612
mkdir -p "$f612"
printf 'VERSION = 6\nPATCHLEVEL = 12\nkernelversion:\n\t@echo 6.12.118\n' >"$f612/Makefile"
t_is "$(env -u TREE KDIR="$f612" bash -c ". '$TOP/scripts/lib.sh'; echo \$TREE_VERSION \${SERIES#\$TOP/} \${BUILD#\$TOP/}")" \
	"6.12 series-6.12 build/6.12" "KDIR= of a 6.12 tree: its series and build folder"
out=$(cd "$TOP" && make -s qemu-test TREE=6.1 KDIR="$f612" 2>&1)
t_like "$out" "^error: KDIR=$f612: a 6.12 tree, but TREE=6.1$" "TREE and KDIR disagree: one-line cause"
t_is "$(cd "$TOP" && unset TREE KDIR RESULTS BUILD SERIES PATCHES; . scripts/lib.sh; echo "$TREE_VERSION ${SERIES#"$TOP"/} ${PATCHES#"$TOP"/} ${RESULTS#"$TOP"/}")" \
	"6.1 series patches results" "no TREE, no KDIR: the 6.1 tree and the top-level names"
