#!/bin/bash
# Bisectability: every stage compiles with CONFIG_SMP=n, and no stage adds
# a W=1 or sparse finding to kernel/sched against pristine, with or without
# SMP. A stage whose patch touches only tools/ (the selftest; lib.sh's
# stage_changes_kernel) compiles the same sources as the stage before it,
# so it is not built again. A stage whose patch changes only kernel/sched/
# compiles kernel/sched/ alone with CONFIG_SMP=n (lint-stage.sh nosmp):
# that finds what breaks the compile there, but not a link error, such as
# a call into a function only SMP kernels define; no stage links a
# CONFIG_SMP=n kernel any more. A stage whose patch leaves a file beyond
# kernel/sched/ unlike the packaged one builds the whole CONFIG_SMP=n
# kernel. Last, build-kernel.sh reuses a
# generated .config until one of its inputs changes.
. "$(dirname "$0")/lib.sh"
stages=$(for s in $(stage_names); do ! stage_changes_kernel "$s" || echo "$s"; done)
t_diag "kernel stages: $(echo "$stages" | paste -sd " "); tools-only stages: $(comm -13 <(echo "$stages" | sort) <(stage_names | sort) | paste -sd ' ')"

# Whether STAGE's patch changes a file outside kernel/sched/ and tools/
# and leaves it unlike the packaged tree's. The patches' git index lines
# tell, with no tree: such a file is as packaged when the blob the last
# patch up to STAGE leaves is the blob the first patch found. (6.12's
# sis-util-v1 takes the fix's field out of include/linux/sched/topology.h
# again: the rest of the kernel then compiles what pristine compiles;
# abel-rfc puts it back.)
reaches_further()
{
	local patch f blobs

	patch=$(stage_patch "$1")
	[ -n "$patch" ] || return 1
	for f in $(patch_files "$patch" | grep -v -e '^kernel/sched/' -e '^tools/' | sort -u); do
		blobs=$(series_patches | awk -v stop="$1" '{ print $1 } $2 == stop { exit }' |
			while read -r p; do
				awk -v f="$f" '
					$0 == "diff --git a/" f " b/" f { on = 1; next }
					on && /^index / { split($2, b, /\.\./); print b[1], b[2]; exit }
					/^diff --git / { on = 0 }' "$PATCHES/$p"
			done)
		[ -n "$blobs" ] || return 0
		[ "$(head -n1 <<<"$blobs" | cut -d' ' -f1)" = "$(tail -n1 <<<"$blobs" | cut -d' ' -f2)" ] ||
			return 0
	done
	return 1
}

further=$(for s in $stages; do ! reaches_further "$s" || echo "$s"; done)
t_diag "stages whose patch reaches beyond kernel/sched/: ${further:-none}"
t_plan $((2 * $(echo "$stages" | wc -l) + 7 + $(echo "$further" | grep -c .)))
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for flavour in nosmp smp; do
	for stage in $stages; do
		if ! "$TOP/scripts/apply-stage.sh" "$stage" >/dev/null 2>&1; then
			t_ok 1 "stage $stage applies"
			continue
		fi
		if [ "$flavour" = nosmp ] && reaches_further "$stage"; then
			rc=0
			out=$("$TOP/scripts/build-kernel.sh" "$stage" nosmp 2>&1) || rc=$?
			t_ok "$rc" "stage $stage: the whole kernel builds with CONFIG_SMP=n (its patch reaches beyond kernel/sched/)"
			[ "$rc" = 0 ] || t_diag "$(echo "$out" | tail -n 3)"
		fi
		what="kernel/sched/ with CONFIG_SMP=n"
		[ "$flavour" = nosmp ] || what="kernel/sched/{fair,build_utility}.o"
		rc=0
		"$TOP/scripts/lint-stage.sh" "$stage" "$flavour" >"$tmp/$flavour-$stage" 2>"$tmp/err" || rc=$?
		cat "$tmp/err" >>"$tmp/lint-stderr"
		# Pristine is the baseline: no finding of its own can be new, so
		# its test is the lint's status, that kernel/sched/ compiles
		# without SMP, as every stage must. With SMP it has no test of its
		# own (the plan counts none) unless the lint fails, which leaves
		# the stages nothing to be compared with.
		if [ "$rc" != 0 ] || [ "$stage:$flavour" = pristine:nosmp ]; then
			t_ok "$rc" "stage $stage: $what compiles with W=1 and sparse"
		fi
		if [ "$rc" != 0 ]; then
			t_diag "$(cat "$tmp/err")"
			continue
		fi
		if [ "$stage" = pristine ]; then
			t_diag "pristine, $flavour: $(wc -l <"$tmp/$flavour-pristine") W=1/sparse findings"
			continue
		fi
		new=$(comm -13 "$tmp/$flavour-pristine" "$tmp/$flavour-$stage")
		t_is "${new:-none}" none "stage $stage: $what compiles, no new W=1 or sparse finding"
	done
done

# The mutant: on top of balance, sched_idle_rq(), which is built without
# SMP too, reads rq->cpu, a field only SMP kernels have. The SMP lint
# passes it; the CONFIG_SMP=n compile must not.
last=$(echo "$stages" | tail -n1)
t_mutant_series "$tmp/mutant" "$last" smp-only \
	'{ print } /^static int sched_idle_rq\(struct rq \*rq\)$/ { getline; print; print "\tif (rq->cpu < 0)\n\t\treturn 0;" }'
t_is "$(grep -c '^+.*rq->cpu < 0' "$tmp/mutant/patches/9999-smp-only.patch")" 1 "the mutant adds one SMP-only access"
SERIES=$tmp/mutant/series PATCHES=$tmp/mutant/patches "$TOP/scripts/apply-stage.sh" smp-only >/dev/null 2>&1
rc=0
out=$("$TOP/scripts/lint-stage.sh" smp-only nosmp 2>&1 >/dev/null) || rc=$?
t_like "$rc $out" "^1 error: W=1 build of kernel/sched \(nosmp\) on stage smp-only failed: .*error: .*cpu" \
	"a stage that reads an SMP-only field outside CONFIG_SMP fails the CONFIG_SMP=n compile, with the compiler's error"
t_series_restore "$tmp/mutant"
"$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1

# build-kernel.sh generates a flavour's .config once and reuses it while
# its inputs stay the same: over all the lints above, each flavour's was
# generated at most once. A changed input, here a Kconfig file of the
# tree, generates it again. A comment line changes nothing in the
# result, so the file and the cache's key are restored with their times
# afterwards, and no later build or object directory pays for the test.
for flavour in nosmp smp; do
	n=$(grep -c "generating the $flavour .config" "$tmp/lint-stderr")
	t_ok $((n > 1)) "the $flavour .config was generated at most once for all stages (generations: $n)"
done
gen=$BUILD/obj/nosmp-config
rc=0
out=$("$TOP/scripts/build-kernel.sh" --config-only "$tmp/obj" nosmp 2>&1) || rc=$?
t_is "$rc $(echo "$out" | grep -c 'generating the nosmp .config')" "0 0" \
	"the nosmp .config the lints used is reused while its inputs are the same"
t_ok "$(cmp -s "$tmp/obj/.config" "$gen/.config"; echo $?)" \
	"and copied into a new object directory"
cp -p "$KDIR/init/Kconfig" "$tmp/Kconfig"
cp -p "$gen/config-key" "$tmp/config-key"
cp -p "$gen/.config" "$tmp/config-before"
trap 'cp -p "$tmp/Kconfig" "$KDIR/init/Kconfig"; cp -p "$tmp/config-key" "$gen/config-key"; rm -rf "$tmp"' EXIT
echo "# sched-idle tests/23: an input of the .config changed" >>"$KDIR/init/Kconfig"
rc=0
out=$("$TOP/scripts/build-kernel.sh" --config-only "$tmp/obj" nosmp 2>&1) || rc=$?
t_like "$rc $out" "^0 .*generating the nosmp .config" "a changed Kconfig file generates it again"
t_ok "$(cmp -s "$tmp/config-before" "$gen/.config"; echo $?)" \
	"with the same result, so restoring the key afterwards is sound"
