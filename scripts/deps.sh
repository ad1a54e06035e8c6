#!/bin/bash
# Install the Debian packages a target needs, when any is missing.
# usage: deps.sh GROUP...   (groups: run, send, check)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

run_pkgs="linux-source-$TREE_VERSION xz-utils quilt make gcc libc6-dev bison flex bc
libelf-dev libssl-dev cpio python3 util-linux qemu-system-x86 busybox-static
rt-app trace-cmd libtracecmd-dev libtracefs-dev libtraceevent-dev pkg-config
gnuplot-nox rt-tests ccache"
send_pkgs="linux-source-$TREE_VERSION xz-utils git perl git-email libmailtools-perl"
# The tests cover every tree.
# shellcheck disable=SC2086 # one word per tree
check_pkgs="perl sparse shellcheck git $send_pkgs python3-aiosmtpd $(printf 'linux-source-%s ' $TREES)"

want=""
for group in "$@"; do
	case $group in
	run) want="$want $run_pkgs" ;;
	send) want="$want $send_pkgs" ;;
	check) want="$want $run_pkgs $check_pkgs" ;;
	*) die "deps.sh: unknown group '$group'" ;;
	esac
done
# shellcheck disable=SC2086 # word splitting is the point
want=$(printf '%s\n' $want | sort -u | tr '\n' ' ')

missing=""
for pkg in $want; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case $status in
	*" installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done
missing=${missing# }

if [ -z "$missing" ]; then
	info "deps: all present ($want)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	die "missing packages; run: sudo apt-get install -y $missing"
fi
info "deps: installing $missing"
log=$BUILD/logs/apt.log
mkdir -p "$(dirname "$log")"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # one word per package
if ! { apt-get update -q &&
	apt-get install -y -q --no-install-recommends $missing; } >"$log" 2>&1; then
	die "apt-get install failed for: $missing (see $log: $(grep -m1 -E '^E:' "$log" || tail -n1 "$log"))"
fi
