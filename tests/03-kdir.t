#!/bin/bash
# A KDIR that is not a 6.1 tree, or that carries someone else's quilt
# patches, is refused with one line that names the cause.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 6
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
t_like "$out" "^error: KDIR=$fake is Linux 5.10.0; the series targets 6.1.y$" "wrong version: one-line cause"

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
