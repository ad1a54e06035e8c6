# shellcheck shell=bash
# TAP helpers for the host tests, run by prove (scripts/check.sh).
set -u -o pipefail
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

# Build STAGE's kernel unless it is current; leaves the tree at some stage.
ensure_kernel()
{
	local flavour=${2:-smp}

	kernel_is_current "$1" "$flavour" && return 0
	"$TOP/scripts/prepare-tree.sh" >&2 &&
		"$TOP/scripts/apply-stage.sh" "$1" >&2 &&
		"$TOP/scripts/build-kernel.sh" "$1" "$flavour" >&2
}
