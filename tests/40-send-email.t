#!/bin/bash
# The send path end to end, with real parts: make patches, then git
# send-email through a real SMTP server (aiosmtpd's Mailbox handler) on
# loopback; the mails are numbered, threaded to the cover letter and
# addressed to get_maintainer's scheduler people; git am of the received
# mails onto their base rebuilds the quilt-applied series exactly; the
# re-applied upstream commits are not mailed.
. "$(dirname "$0")/lib.sh"
t_plan 19
tmp=$(mktemp -d)
server=""
cleanup()
{
	[ -z "$server" ] || kill "$server" 2>/dev/null
	[ -z "$server" ] || wait "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
"$TOP/scripts/deps.sh" check >/dev/null || t_bail "missing packages"
# The cover letter's run, in this file's own results folder, where make
# patches looks for the newest complete selftest run: the recorded
# selftest boots of the packaged tree and the baseline (real boots, in
# tests/fixtures), judged now against the matrix. No boot, and nothing
# read from another test file's results.
# (tests/13 checks those boots against the matrix; tests/30 feeds a run
# of its own to the cover letter's table.)
run=$RESULTS/fixture-run
rm -rf "$run"
for stage in pristine baseline; do
	mkdir -p "$run/$stage"
	cp -r "$TOP/tests/fixtures/boots/selftest-$stage" "$run/$stage/selftest"
	rc=0
	python3 "$TOP/scripts/judge.py" "$run/$stage/selftest" --expect "$TOP/tests/selftest-matrix" \
		--column "$stage" >/dev/null || rc=$?
	record_boot "$run" "$stage" selftest "$run/$stage/selftest" "$rc"
done
echo complete >"$run/status"
# The mails of this test, not in the user's build/outgoing.
export OUTGOING=$tmp/outgoing

out=$(cd "$TOP" && make -s send-email 2>&1)
t_ok $(($? == 0)) "make send-email without TO refuses"
t_like "$out" "^error: send-email: no TO" "with a one-line cause"

# A real SMTP server on a free loopback port, storing into a Maildir.
# Debian's interpreter, which has Debian's aiosmtpd, whatever is first
# in PATH.
py=/usr/bin/python3
port=$($py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$py -m aiosmtpd -n -l "127.0.0.1:$port" -c aiosmtpd.handlers.Mailbox "$tmp/maildir" \
	>"$tmp/smtpd.log" 2>&1 &
server=$!
up=""
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && { up=1; break; }
	sleep 0.1
done
[ -n "$up" ] || t_bail "the SMTP server did not start: $(tail -n1 "$tmp/smtpd.log")"

# One line per received mail: number, subject, ids, envelope recipients.
mails()
{
	$py - "$tmp/maildir" <<'EOF'
import mailbox, re, sys
rows = []
for msg in mailbox.Maildir(sys.argv[1], create=False):
    subject = " ".join(str(msg["Subject"]).split())
    m = re.match(r"\[PATCH v\d+ (\d+)/(\d+)\]", subject)
    n = int(m.group(1)) if m else -1
    rows.append((n, subject, msg["Message-ID"], msg["In-Reply-To"] or "-",
                 " ".join((msg["References"] or "-").split()),
                 msg["X-RcptTo"] or "-"))
for row in sorted(rows):
    print("\t".join(str(f) for f in row))
EOF
}

# Without the user's git configuration, which might add recipients or a
# server of its own. The patches are signed by the project placeholder.
send()
{
	env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		TO=maintainer-test@example.org MAIL_CC=cc-test@example.org \
		FROM="Test Sender <sender@example.org>" SMTP_SERVER=127.0.0.1 SMTP_PORT="$port" \
		"$@" "$TOP/scripts/send-email.sh" >"$tmp/send.log" 2>&1
}

send
t_like "$(cat "$tmp/send.log")" "^error: send-email: the patches carry a placeholder identity" \
	"patches signed by a *.invalid placeholder are not sent"

send DRY_RUN=1
t_ok $? "DRY_RUN=1 runs"
t_like "$(cat "$tmp/send.log")" "^Dry-OK" "and prints what would go where"
t_is "$(mails 2>/dev/null | wc -l)" 0 "and sends nothing"

send PLACEHOLDER_OK=1
rc=$?
t_ok "$rc" "git send-email through the loopback server"
[ "$rc" = 0 ] || t_diag "$(tail -n 5 "$tmp/send.log")"
mails >"$tmp/mails" 2>"$tmp/mails.err" || t_diag "$(cat "$tmp/mails.err")"
n=$(($(series_patches | wc -l) - $(unsent_patches | wc -l)))
t_is "$(wc -l <"$tmp/mails")" $((n + 1)) "one mail per sendable patch plus the cover letter"
t_is "$(cut -f1 "$tmp/mails" | tr '\n' ' ')" "$(seq -s ' ' 0 "$n") " "numbered 0/$n to $n/$n"
t_like "$(head -n1 "$tmp/mails" | cut -f2)" "^\[PATCH v1 0/$n\] " "the first is the cover letter"
upstream=$(grep -l -r '^\[ Upstream commit ' "$tmp/maildir" 2>/dev/null | wc -l)
t_is "$upstream/$(upstream_patches | wc -l | awk '$1 > 0 { print "some" }')" "0/some" \
	"none of the series' re-applied upstream commits is mailed"

cover=$(head -n1 "$tmp/mails" | cut -f3)
unthreaded=$(tail -n +2 "$tmp/mails" | awk -F'\t' -v c="$cover" '$4 != c || index($5, c) == 0 { print $1 }')
[ "$(wc -l <"$tmp/mails")" -gt 1 ] || unthreaded="no replies at all"
t_is "${unthreaded:-none}" none "every patch replies to the cover letter (In-Reply-To, References)"

missing=""
for addr in maintainer-test@example.org cc-test@example.org mingo@redhat.com \
	peterz@infradead.org vincent.guittot@linaro.org linux-kernel@vger.kernel.org; do
	awk -F'\t' -v a="$addr" 'index($6, a) == 0 { bad = 1 } END { exit bad }' "$tmp/mails" ||
		missing="$missing $addr"
done
[ -s "$tmp/mails" ] || missing="no mails at all"
t_is "${missing:-none}" none "TO, CC, the scheduler maintainers and LKML receive every mail"

# And nobody else: TO, CC, what get_maintainer.pl names for the series,
# and the patches' author from its Signed-off-by (here the placeholder).
# --no-fixes as in get-recipients.sh: the send tree, made from a tarball,
# has no history in which to find a Fixes: tag's commit.
want=$( {
	echo maintainer-test@example.org
	echo cc-test@example.org
	echo sched-idle@example.invalid
	mapfile -t patches < <(find "$OUTGOING" -name '*.patch' ! -name '*0000-cover-letter.patch')
	(cd "$(send_tree)" && ./scripts/get_maintainer.pl --no-rolestats --no-git \
		--no-git-fallback --no-fixes "${patches[@]}")
} | sed 's/.*<\(.*\)>.*/\1/' | sort -u | tr '\n' ' ')
extra=$(cut -f6 "$tmp/mails" | while read -r rcpts; do
	got=$(echo "$rcpts" | tr -s ', ' '\n' | grep . | sort -u | tr '\n' ' ')
	[ "$got" = "$want" ] || echo "got: $got"
done | sort -u)
[ -s "$tmp/mails" ] || extra="no mails at all"
t_is "${extra:-none}" none "every mail goes to exactly that set"

# A second version needs its changelog, and carries it in the cover letter.
cp -r "$PATCHES" "$tmp/patches"
out=$(V=2 PATCHES=$tmp/patches OUTGOING=$tmp/v2 "$TOP/scripts/format-patches.sh" 2>&1)
t_like "$out" "^error: V=2 needs a 'v2:' section in " "V=2 without a changelog refuses"
printf 'v2:\n- Reworded 2/%d (test entry).\n' "$n" >>"$tmp/patches/changes"
V=2 PATCHES=$tmp/patches OUTGOING=$tmp/v2 "$TOP/scripts/format-patches.sh" >/dev/null 2>&1
letter=$(cat "$tmp"/v2/v2-0000-cover-letter.patch 2>/dev/null)
t_like "$letter" "^Subject: \[PATCH v2 0/$n\] " "V=2 gives [PATCH v2 k/m]"
t_like "$(echo "$letter" | grep -A1 '^Changes in v2:')" "^- Reworded 2/$n \(test entry\)" \
	"and the cover letter lists the changes"

# git am onto a fresh checkout of the mails' base, the send tree after
# the unsent patches that open the series (the LOCAL baseline and the
# upstream commits re-applied on it), then compare with the quilt-applied
# full series, less the LOCAL measuring aids further down, which the mails
# leave out.
local_commit=$(git -C "$(send_tree)" rev-list --reverse base..HEAD | sed -n "$(leading_unsent_patches | wc -l)p")
git clone -q --shared --no-checkout "$(send_tree)" "$tmp/am" &&
	git -C "$tmp/am" checkout -q "$local_commit" &&
	git -C "$tmp/am" config user.name "sched-idle test" &&
	git -C "$tmp/am" config user.email "test@example.invalid"
$py - "$tmp/maildir" "$tmp/mbox" <<'EOF'
import mailbox, re, sys
msgs = []
for msg in mailbox.Maildir(sys.argv[1], create=False):
    m = re.match(r"\[PATCH v\d+ (\d+)/", " ".join(str(msg["Subject"]).split()))
    if m and int(m.group(1)) > 0:
        msgs.append((int(m.group(1)), msg))
box = mailbox.mbox(sys.argv[2])
for _, msg in sorted(msgs, key=lambda x: x[0]):
    box.add(msg)
box.close()
EOF
out=$(git -C "$tmp/am" am "$tmp/mbox" 2>&1)
t_ok $? "git am applies the received mails to their base"
[ -z "$(git -C "$tmp/am" status --porcelain 2>/dev/null)" ] || t_diag "$out"
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
"$TOP/scripts/apply-stage.sh" "$(stage_names | tail -n1)" >/dev/null 2>&1
for p in $(unsent_patches | grep -vxF -f <(leading_unsent_patches)); do
	git -C "$tmp/am" apply "$PATCHES/$p" || t_diag "LOCAL $p does not apply to the mails"
done
differ=$(for d in kernel include tools; do
	diff -rq "$KDIR/$d" "$tmp/am/$d"
done 2>&1 | head -n 5)
t_is "${differ:-none}" none "kernel/, include/ and tools/ equal the quilt-applied series"
