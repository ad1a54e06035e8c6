#!/bin/bash
# make send-email: mail PART's series (made afresh by format-patches.sh in
# build/outgoing*/) with git send-email. PART=new goes to TO and MAIL_CC
# plus the recipients get_maintainer.pl names for the series; PART=repro,
# the reproduction of merged upstream work, goes to TO and MAIL_CC only,
# and to nobody its patches' tags name. Nothing goes anywhere without TO.
# env: PART, TO (required), MAIL_CC (make send-email CC=... sets it), FROM
#      (default: git's committer identity), SMTP_SERVER, SMTP_PORT
#      (default: the send tree's sendemail.smtpServer), DRY_RUN=1 (print
#      what would go where, send nothing), PLACEHOLDER_OK=1 (send patches
#      signed by a *.invalid placeholder anyway), V, RUN
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
mail_tree "$@"
check_settings

[ -n "${TO:-}" ] ||
	die "send-email: no TO; nothing is sent without one (make send-email TO=you@example.org)"
part=$(setting PART)
tree=$(send_tree)
out=$(outgoing_dir)
dry=""
[ "$(setting DRY_RUN)" != 1 ] || dry=1
cc=${MAIL_CC:-}

from=${FROM:-$(git var GIT_COMMITTER_IDENT 2>/dev/null | sed 's/>.*/>/' || true)}
[ -n "$from" ] || die "send-email: no sender; set FROM='Name <addr>' or git config user.email"

"$TOP/scripts/format-patches.sh"
mapfile -t mails < <(find "$out" -maxdepth 1 -name '*.patch' | sort)

# A placeholder identity would be Cc'd from its Signed-off-by and bounce.
placeholder=$(grep -h -m1 -E '^(From|Signed-off-by): .*\.invalid>' "${mails[@]}" | head -n1 || true)
if [ -n "$placeholder" ] && [ -z "$dry" ] && [ "$(setting PLACEHOLDER_OK)" != 1 ]; then
	die "send-email: the patches carry a placeholder identity ($placeholder); set yours in build/tree and make refresh"
fi

smtp=()
if [ -n "${SMTP_SERVER:-}" ]; then
	smtp=(--smtp-server="$SMTP_SERVER" --smtp-server-port="$(setting SMTP_PORT)")
elif [ -z "$(git -C "$tree" config --get sendemail.smtpServer || true)" ] && [ -z "$dry" ]; then
	# Without a server git would hand the mail to a local sendmail; only
	# an address the user gave may be talked to.
	die "send-email: no SMTP server; set SMTP_SERVER= or git config sendemail.smtpServer"
fi

args=(--to="$TO" --from="$from" --confirm=never --thread --no-chain-reply-to
	--8bit-encoding=UTF-8)
if [ "$part" = new ]; then
	args+=(--suppress-cc=self
		--to-cmd="$TOP/scripts/get-recipients.sh to"
		--cc-cmd="$TOP/scripts/get-recipients.sh cc")
	whom="$TO${cc:+, cc $cc} and get_maintainer.pl's recipients"
else
	# The re-applied commits carry their authors' and maintainers'
	# sign-offs; none of them asked for these mails.
	args+=(--suppress-cc=all)
	whom="$TO${cc:+, cc $cc} only"
fi
[ -z "$cc" ] || args+=(--cc="$cc")
[ -z "$dry" ] || args+=(--dry-run)
info "send-email: ${#mails[@]} mails of PART=$part to $whom${dry:+ (dry run)}"
# get_maintainer.pl runs from the top of the tree the series is in.
cd "$tree"
git send-email "${args[@]}" "${smtp[@]}" "${mails[@]}"
