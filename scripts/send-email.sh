#!/bin/bash
# make send-email: mail build/outgoing (made afresh by format-patches.sh)
# with git send-email, to TO and CC plus the recipients get_maintainer.pl
# names for each patch. Nothing goes anywhere without TO.
# env: TO (required), CC, FROM (default: git's committer identity),
#      SMTP_SERVER, SMTP_PORT (default: git's sendemail.smtpServer),
#      DRY_RUN=1 (print what would go where, send nothing), V, RUN
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ -n "${TO:-}" ] ||
	die "send-email: no TO; nothing is sent without one (make send-email TO=you@example.org)"
tree=$(send_tree)
out=${OUTGOING:-$BUILD/outgoing}

from=${FROM:-$(git var GIT_COMMITTER_IDENT 2>/dev/null | sed 's/>.*/>/' || true)}
[ -n "$from" ] || die "send-email: no sender; set FROM='Name <addr>' or git config user.email"
smtp=()
if [ -n "${SMTP_SERVER:-}" ]; then
	smtp=(--smtp-server="$SMTP_SERVER" --smtp-server-port="${SMTP_PORT:-25}")
elif [ -z "$(git config sendemail.smtpServer || true)" ] && [ -z "${DRY_RUN:-}" ]; then
	# Without a server git would hand the mail to a local sendmail; only
	# an address the user gave may be talked to.
	die "send-email: no SMTP server; set SMTP_SERVER= or git config sendemail.smtpServer"
fi

"$TOP/scripts/format-patches.sh"
mapfile -t mails < <(find "$out" -maxdepth 1 -name '*.patch' | sort)
args=(--to="$TO" --from="$from" --confirm=never --thread --no-chain-reply-to
	--8bit-encoding=UTF-8 --suppress-cc=self
	--to-cmd="$TOP/scripts/get-recipients.sh to"
	--cc-cmd="$TOP/scripts/get-recipients.sh cc")
[ -z "${CC:-}" ] || args+=(--cc="$CC")
[ -z "${DRY_RUN:-}" ] || args+=(--dry-run)
info "send-email: ${#mails[@]} mails to $TO${CC:+, cc $CC}${DRY_RUN:+ (dry run)}"
# get_maintainer.pl runs from the top of the tree the series is in.
cd "$tree"
git send-email "${args[@]}" "${smtp[@]}" "${mails[@]}"
