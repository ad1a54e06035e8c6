#!/bin/bash
# Build the host-side analyser against Debian's libtracecmd and
# libtraceevent. Output: build/tools/sched-idle-analyse
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

src=$TOP/scripts/sched-idle-analyse.c
out=$BUILD/tools/sched-idle-analyse
mkdir -p "$BUILD/tools"
[ ! -x "$out" ] || [ "$src" -nt "$out" ] || exit 0
pkgs="libtracecmd libtraceevent"
# shellcheck disable=SC2086 # pkg-config prints flags to split
flags=$(pkg-config --cflags --libs $pkgs) ||
	die "pkg-config finds no $pkgs; run scripts/deps.sh run"
# shellcheck disable=SC2086 # flags are words
cc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -o "$out.tmp" "$src" $flags -lm
mv "$out.tmp" "$out"
info "analyser: $out"
