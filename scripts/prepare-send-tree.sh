#!/bin/bash
# Make sure the send tree (see send_tree in lib.sh) holds the current
# series, rebuilding it with make-tree.sh when the series has changed.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

tree=$(send_tree)
want=$(series_hash)
if [ "$(cat "$tree/.git/sched-idle-series" 2>/dev/null)" = "$want" ]; then
	exit 0
fi
info "send tree: importing series $want into $tree"
rm -rf "$tree"
GIT_TREE=$tree "$TOP/scripts/make-tree.sh"
echo "$want" >"$tree/.git/sched-idle-series"
