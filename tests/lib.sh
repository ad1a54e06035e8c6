# shellcheck shell=bash
# TAP helpers for the host tests, run by prove (scripts/check.sh).
set -u -o pipefail
# Each test file boots into a results folder of its own under build/,
# emptied at its start: the user's results/ and results/latest are left
# alone. A test that wants the real one sets RESULTS itself.
T_NAME=$(basename "$0" .t)
if [ -z "${RESULTS:-}" ]; then
	RESULTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/test-results/$T_NAME
	rm -rf "$RESULTS"
	mkdir -p "$RESULTS"
fi
# The scripts a test runs must see the same folder.
export RESULTS
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

T_N=0

t_plan()
{
	echo "1..$1"
}

t_ok()
{
	T_N=$((T_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $T_N - $2"
	else
		echo "not ok $T_N - $2"
	fi
}

# t_is GOT WANT NAME
t_is()
{
	local rc=0

	[ "$1" = "$2" ] || rc=1
	t_ok "$rc" "$3"
	[ "$rc" = 0 ] || printf '# got:  %s\n# want: %s\n' "$1" "$2"
}

# t_like TEXT ERE NAME
t_like()
{
	local rc=0

	echo "$1" | grep -qE -- "$2" || rc=1
	t_ok "$rc" "$3"
	[ "$rc" = 0 ] || printf '# text: %s\n# does not match: %s\n' "$(echo "$1" | head -n 5)" "$2"
}

t_diag()
{
	local line

	while IFS= read -r line; do
		echo "# $line"
	done <<<"$*"
}

# Build STAGE's kernel unless it is current (scripts/build-stage.sh, as
# the harness does); leaves the tree at some stage.
ensure_kernel()
{
	"$TOP/scripts/build-stage.sh" "$1" "${2:-smp}" >/dev/null
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
