#!/bin/bash
# git send-email --to-cmd/--cc-cmd: the recipients get_maintainer.pl names
# for the series MAIL belongs to (the other mails in its folder),
# maintainers as To and reviewers and lists as Cc. Every mail goes to all
# of them, so that nobody receives a series with holes in it.
# usage: get-recipients.sh to|cc MAIL   (run from the top of a kernel tree)
set -eu -o pipefail

[ $# = 2 ] || { echo "usage: get-recipients.sh to|cc MAIL" >&2; exit 1; }
case $1 in
to) roles=(--no-l --no-r) ;;
cc) roles=(--no-m) ;;
*) echo "error: get-recipients.sh: '$1' is neither to nor cc" >&2; exit 1 ;;
esac
mapfile -t mails < <(find "$(dirname "$2")" -maxdepth 1 -name '*.patch' \
	! -name '*0000-cover-letter.patch' | sort)
# Without git history to mine, only MAINTAINERS decides: the send tree
# holds none of the commits a Fixes: tag names, so --fixes could only fail.
./scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback --no-fixes \
	"${roles[@]}" "${mails[@]}"
