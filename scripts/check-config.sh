#!/bin/bash
# Fail when an option a fragment asks for is not in the final .config.
# Later fragments override earlier ones, as in merge_config.sh.
# usage: check-config.sh DOTCONFIG FRAGMENT...
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: check-config.sh DOTCONFIG FRAGMENT..."
dotconfig=$1
shift

# Normalise "# CONFIG_X is not set" to CONFIG_X=n, so that both spellings
# compare, and an option missing from .config counts as n.
normalise()
{
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1=\2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1=n/p' "$@"
}

bad=$(awk -F= '
	FNR == NR { have[$1] = $2; next }
	{ want[$1] = $2 }
	END {
		for (opt in want) {
			got = (opt in have) ? have[opt] : "n"
			if (got != want[opt])
				printf "%s=%s (got %s)\n", opt, want[opt], got
		}
	}' <(normalise "$dotconfig") <(normalise "$@") | sort)

if [ -n "$bad" ]; then
	die "$dotconfig lacks requested options: $(echo "$bad" | tr '\n' ' ')"
fi
