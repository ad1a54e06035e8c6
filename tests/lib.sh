# shellcheck shell=bash
# TAP helpers for the host tests, run by prove (scripts/check.sh).
set -u -o pipefail
# Each test file boots into a results folder of its own under build/,
# emptied at its start: the user's results/ and results/latest are left
# alone. A test that wants the real one sets RESULTS itself.
# A test file runs for the tree TREE names (scripts/lib.sh; default 6.1);
# the *-6.12.t files are the same tests with TREE=6.12.
T_NAME=$(basename "$0" .t)${TREE:+-$TREE}
# Named, so that a KDIR given to make check does not pick the tree of a
# file meant for the default one.
TREE=${TREE:-$(sed -n 's/^TREE|\([^|]*\)|.*/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../scripts/variables")}
export TREE
if [ -z "${RESULTS:-}" ]; then
	RESULTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/test-results/$T_NAME
	rm -rf "$RESULTS"
	mkdir -p "$RESULTS"
fi
# The scripts a test runs must see the same folder.
export RESULTS
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
# A KDIR given to make check serves the test files of its own tree; the
# other tree's take their default.
if [ -n "$KDIR_VERSION" ] && [ "$KDIR_VERSION" != "$TREE_VERSION" ]; then
	KDIR=$DEFAULT_KDIR
fi

T_N=0
# Whether the last test failed: its diagnostics then go to T_FAIL_LOG
# too, which make check prints at its end, where a CI log's tail shows it.
T_FAILING=0

# t_fail_log LINE: LINE, with the file's name, into T_FAIL_LOG if set.
t_fail_log()
{
	[ -z "${T_FAIL_LOG:-}" ] || printf '%s: %s\n' "$T_NAME" "$1" >>"$T_FAIL_LOG"
}

# tests/NAME for the default tree, tests/NAME-VERSION for another: the
# expectations that differ between the trees' series.
t_tree_file()
{
	if [ "$TREE_VERSION" = "${TREES%% *}" ]; then
		echo "$TOP/tests/$1"
	else
		echo "$TOP/tests/$1-$TREE_VERSION"
	fi
}

# t_bail REASON: a set-up this file cannot do without failed. "Bail out!"
# stops prove, so the whole of make check, not only this file; the
# reason goes to make check's digest too.
t_bail()
{
	echo "Bail out! $*"
	t_fail_log "Bail out! $*"
	exit 1
}

t_plan()
{
	echo "1..$1"
}

t_ok()
{
	T_N=$((T_N + 1))
	if [ "$1" = 0 ]; then
		T_FAILING=0
		echo "ok $T_N - $2"
	else
		T_FAILING=1
		echo "not ok $T_N - $2"
		t_fail_log "not ok $T_N - $2"
	fi
}

# t_is GOT WANT NAME
t_is()
{
	local rc=0

	[ "$1" = "$2" ] || rc=1
	t_ok "$rc" "$3"
	[ "$rc" = 0 ] || t_diag "got:  $1" "want: $2"
}

# t_like TEXT ERE NAME
t_like()
{
	local rc=0

	echo "$1" | grep -qE -- "$2" || rc=1
	t_ok "$rc" "$3"
	[ "$rc" = 0 ] || t_diag "text: $(echo "$1" | head -n 5)" "does not match: $2"
}

# t_diag LINE...: each argument on lines of its own, as TAP comments.
t_diag()
{
	local arg line

	for arg in "$@"; do
		while IFS= read -r line; do
			echo "# $line"
			[ "$T_FAILING" = 0 ] || t_fail_log "# $line"
		done <<<"$arg"
	done
}

# Build STAGE's kernel unless it is current (scripts/build-stage.sh, as
# the harness does); leaves the tree at some stage.
ensure_kernel()
{
	"$TOP/scripts/build-stage.sh" "$1" "${2:-smp}" >/dev/null
}

# What a test that boots the pristine kernel needs, or a bail-out that
# names what failed: the kernel and the initramfs. Sets T_KERNEL to the
# bzImage.
t_pristine_guest()
{
	ensure_kernel pristine || t_bail "cannot build the pristine kernel"
	"$TOP/scripts/build-initramfs.sh" >/dev/null 2>&1 || t_bail "cannot build the initramfs"
	# shellcheck disable=SC2034 # for the test files
	T_KERNEL=$(kernel_dir pristine smp)/bzImage
}

# The same, with the selftest in the initramfs.
t_selftest_guest()
{
	"$TOP/scripts/build-selftest.sh" >/dev/null 2>&1 || t_bail "cannot build the selftest"
	t_pristine_guest
}

# "name<TAB>result" lines of a judged boot, result being pass, fail, skip
# or todo.
t_subtests()
{
	python3 "$TOP/scripts/judge.py" --subtests "$1/result.json" 2>/dev/null
}

# A copy of expected matrix $1 in which subtest $3 has result $4 on stage
# $2, on stdout: the mutant of the tests that show the judge can fail.
t_flip_matrix()
{
	awk -v stage="$2" -v subtest="$3" -v want="$4" '
		$1 == "subtest" { for (i = 2; i <= NF; i++) if ($i == stage) c = i }
		$1 == subtest && c { $c = want } { print }' "$1"
}

# The result of subtest $2 in boot folder $1: pass, fail, skip or missing.
t_subtest()
{
	local r

	r=$(t_subtests "$1" | awk -F'\t' -v n="$2" '$1 == n { print $2; exit }')
	echo "${r:-missing}"
}

# A throwaway series in folder $1 for the tests that need a kernel the real
# series does not give: the real patches up to stage $2's, then one more,
# stage $3, which rewrites stage $2's kernel/sched/fair.c through the awk
# program $4. Leaves the tree at stage $2; the patch is $1/patches/9999-$3.patch.
# Use it with SERIES=$1/series PATCHES=$1/patches, and put the tree back
# with t_series_restore $1 at the end.
t_mutant_series()
{
	local dir=$1 base=$2 name=$3 prog=$4

	mkdir -p "$dir/a/kernel/sched" "$dir/b/kernel/sched" "$dir/patches"
	cp "$PATCHES"/*.patch "$dir/patches/"
	awk -v s="$base" '{ print } $0 ~ " # stage: " s "( |$)" { exit }' "$SERIES" >"$dir/series"
	SERIES=$dir/series PATCHES=$dir/patches "$TOP/scripts/apply-stage.sh" "$base" >/dev/null 2>&1
	cp "$KDIR/kernel/sched/fair.c" "$dir/a/kernel/sched/"
	awk "$prog" "$dir/a/kernel/sched/fair.c" >"$dir/b/kernel/sched/fair.c"
	(cd "$dir" && diff -u a/kernel/sched/fair.c b/kernel/sched/fair.c) >"$dir/patches/9999-$name.patch"
	echo "9999-$name.patch # stage: $name" >>"$dir/series"
}

# Pop the tree of a t_mutant_series folder $1 back to pristine.
t_series_restore()
{
	SERIES=$1/series PATCHES=$1/patches "$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1
}

# The mutant of tests/31 and tests/51: the first throttle_cfs_rq() loop no
# longer takes the throttled group's SCHED_IDLE tasks out of the count.
# shellcheck disable=SC2034 # used by the tests that source this
T_LEAK='/qcfs_rq->idle_h_nr_running -= idle_task_delta;/ && !done { done = 1; next } { print }'
