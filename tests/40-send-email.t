#!/bin/bash
# shellcheck disable=SC2016 # of_tree runs its commands in a shell of the other tree
# The send path end to end for both series, with real parts: make patches,
# then git send-email through a real SMTP server (aiosmtpd's Mailbox
# handler) on loopback.
# - PART=new, from the 6.12 series when TREE is unset: the selftest and
#   the SIS_UTIL fix, numbered and threaded to the cover letter, addressed
#   to get_maintainer's people, with the packaged tree as base-commit and
#   fd54d81c2c0e as prerequisite-patch-id; git am of the received mails
#   onto that rebuilds the quilt-applied 6.12 series exactly.
# - PART=repro, from the 6.1 series: the re-applied upstream commits under
#   their authors' names, to TO and CC and to nobody else; git am onto
#   the LOCAL revert gives the packaged tree back.
. "$(dirname "$0")/lib.sh"
t_plan 36
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
new_tree=$NEW_WORK_TREE
# Facts of the other tree's series, read with its settings.
of_tree()
{
	env -u KDIR -u SERIES -u PATCHES TREE="$1" PART="$2" bash -c ". '$TOP/scripts/lib.sh'; $3"
}

# The cover letters' runs, in this file's own results folder: recorded
# selftest boots (real boots, in tests/fixtures), judged now against each
# tree's matrix. 6.1: the packaged tree and the baseline; 6.12: idle-wakee
# (the new work's base) and selftest-nested (its last stage). No boot, and
# nothing read from another test file's results. (tests/13 checks the 6.1
# boots against the matrix; tests/30 feeds a run of its own to the cover
# letter's table.)
fixture_run()
{
	local run=$RESULTS/fixture-run-$1 matrix=$2 fixtures=$3 stage rc

	shift 3
	rm -rf "$run"
	for stage in "$@"; do
		mkdir -p "$run/$stage"
		cp -r "$fixtures/selftest-$stage" "$run/$stage/selftest"
		rc=0
		python3 "$TOP/scripts/judge.py" "$run/$stage/selftest" --expect "$matrix" \
			--column "$stage" >/dev/null || rc=$?
		record_boot "$run" "$stage" selftest "$run/$stage/selftest" "$rc"
	done
	echo complete >"$run/status"
	echo "$run"
}
run61=$(fixture_run 6.1 "$TOP/tests/selftest-matrix" "$TOP/tests/fixtures/boots" pristine baseline)
run612=$(fixture_run "$new_tree" "$TOP/tests/selftest-matrix-$new_tree" \
	"$TOP/tests/fixtures/boots-$new_tree" idle-wakee selftest-nested)

out=$(cd "$TOP" && env -u TREE -u KDIR make -s send-email 2>&1)
t_ok $(($? == 0)) "make send-email without TO refuses"
t_like "$out" "^error: send-email: no TO" "with a one-line cause"
out=$(PART=both "$TOP/scripts/format-patches.sh" 2>&1)
t_is "$?:$(echo "$out" | wc -l)" "2:1" "PART=both is refused with status 2 and one line"
t_like "$out" "^error: PART=both: want new or repro" "naming the variable and what it takes"
out=$(TREE=6.1 PART=new "$TOP/scripts/format-patches.sh" 2>&1)
t_like "$?: $out" "^1: error: PART=new: the new work is mailed from the $new_tree series only" \
	"TREE=6.1 PART=new is refused: 6.1 keeps the fix's first version"

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

# One line per received mail: number, subject, ids, envelope recipients,
# and the author line git send-email puts first in the body when the
# author is not the sender. The Maildir is emptied after each reading.
mails()
{
	$py - "$tmp/maildir" <<'PY'
import mailbox, re, sys
rows = []
box = mailbox.Maildir(sys.argv[1], create=False)
for key, msg in box.items():
    subject = " ".join(str(msg["Subject"]).split())
    m = re.match(r"\[PATCH v\d+ (\d+)/(\d+)\]", subject)
    n = int(m.group(1)) if m else -1
    body = msg.get_payload(decode=True).decode("utf-8", "replace")
    first = body.split("\n", 1)[0] if body.startswith("From: ") else "-"
    rows.append((n, subject, msg["Message-ID"], msg["In-Reply-To"] or "-",
                 " ".join((msg["References"] or "-").split()),
                 msg["X-RcptTo"] or "-", first))
for row in sorted(rows):
    print("\t".join(str(f) for f in row))
PY
}

# An mbox of the received patches (not the cover letter), in order.
mbox()
{
	$py - "$tmp/maildir" "$1" <<'PY'
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
PY
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

# The recipients of every mail of list $1 that are not exactly $2
# (space-separated, sorted) plus whoever a Reported-by: of the mail's own
# patch in folder $3 names, as "mail N got: ..." lines.
recipients_other_than()
{
	local n rcpts got want

	cut -f1,6 "$1" | while read -r n rcpts; do
		got=$(echo "$rcpts" | tr -s ', ' '\n' | grep . | sort -u | tr '\n' ' ')
		want=$2
		[ -z "${3:-}" ] || want=$( { tr ' ' '\n' <<<"$2"
			sed -n '/^---$/q; s/^Reported-by: .*<\(.*\)>$/\1/p' \
				"$3"/*-"$(printf %04d "$n")"-*.patch; } |
			grep . | sort -u | tr '\n' ' ')
		[ "$got" = "$want" ] || echo "mail $n got: $got"
	done | sort -u
}

# --- PART=new, TREE unset: the 6.12 series ---
newsend()
{
	send env -u TREE -u KDIR PART=new RUN="$run612" OUTGOING="$tmp/new" "$@"
}
newsend
t_like "$(cat "$tmp/send.log")" "^error: send-email: the patches carry a placeholder identity" \
	"new: patches signed by a *.invalid placeholder are not sent"

newsend DRY_RUN=1
t_ok $? "new: DRY_RUN=1 runs"
t_like "$(cat "$tmp/send.log")" "^Dry-OK" "and prints what would go where"
t_is "$(mails 2>/dev/null | wc -l)" 0 "and sends nothing"

newsend PLACEHOLDER_OK=1
rc=$?
t_ok "$rc" "new: git send-email through the loopback server, TREE unset"
[ "$rc" = 0 ] || t_diag "$(tail -n 5 "$tmp/send.log")"
mails >"$tmp/new.mails" 2>"$tmp/mails.err" || t_diag "$(cat "$tmp/mails.err")"
mbox "$tmp/new.mbox"
rm -rf "$tmp/maildir"/{new,cur}/*
n=$(of_tree "$new_tree" new mailed_patches | wc -l)
t_is "$(wc -l <"$tmp/new.mails")/$n" "6/5" \
	"new: one mail per new patch (two selftests, two fixes), plus the cover letter"
t_is "$(cut -f1 "$tmp/new.mails" | tr '\n' ' ')" "$(seq -s ' ' 0 "$n") " "numbered 0/$n to $n/$n"
t_like "$(head -n1 "$tmp/new.mails" | cut -f2)" "^\[PATCH v1 0/$n\] " "the first is the cover letter"
t_is "$(grep -c 'Upstream commit' "$tmp/new.mbox")" 0 "none of the re-applied upstream commits is mailed"

cover=$(head -n1 "$tmp/new.mails" | cut -f3)
unthreaded=$(tail -n +2 "$tmp/new.mails" | awk -F'\t' -v c="$cover" '$4 != c || index($5, c) == 0 { print $1 }')
[ "$(wc -l <"$tmp/new.mails")" -gt 1 ] || unthreaded="no replies at all"
t_is "${unthreaded:-none}" none "every patch replies to the cover letter (In-Reply-To, References)"

missing=""
for addr in maintainer-test@example.org cc-test@example.org mingo@redhat.com \
	peterz@infradead.org vincent.guittot@linaro.org linux-kernel@vger.kernel.org \
	shuah@kernel.org linux-kselftest@vger.kernel.org; do
	awk -F'\t' -v a="$addr" 'index($6, a) == 0 { bad = 1 } END { exit bad }' "$tmp/new.mails" ||
		missing="$missing $addr"
done
[ -s "$tmp/new.mails" ] || missing="no mails at all"
t_is "${missing:-none}" none \
	"TO, CC, the scheduler and kselftest maintainers and both lists receive every mail"

# And nobody else: TO, CC, what get_maintainer.pl names for the series,
# the patches' author from its Signed-off-by (here the placeholder), and
# on a patch with a Reported-by: its reporter, whom git send-email copies.
# --no-fixes as in get-recipients.sh: the send tree, made from a tarball,
# has no history in which to find a Fixes: tag's commit.
send612=$(of_tree "$new_tree" new send_tree)
want=$( {
	echo maintainer-test@example.org
	echo cc-test@example.org
	echo sched-idle@example.invalid
	mapfile -t patches < <(find "$tmp/new" -name '*.patch' ! -name '*0000-cover-letter.patch')
	(cd "$send612" && ./scripts/get_maintainer.pl --no-rolestats --no-git \
		--no-git-fallback --no-fixes "${patches[@]}")
} | sed 's/.*<\(.*\)>.*/\1/' | sort -u | tr '\n' ' ')
extra=$(recipients_other_than "$tmp/new.mails" "$want" "$tmp/new")
[ -s "$tmp/new.mails" ] || extra="no mails at all"
t_is "${extra:-none}" none "every mail goes to exactly that set"

# The cover letter's base: a commit whose kernel/ and include/ are the
# packaged tree's with the BASE fix (e08d007f9d81), which the letter
# names, and fd54d81c2c0e, as re-applied, as the prerequisite.
letter=$(cat "$tmp"/new/v1-0000-cover-letter.patch 2>/dev/null)
base=$(echo "$letter" | sed -n 's/^base-commit: //p')
nbase=$(of_tree "$new_tree" new 'base_patches | grep -c .')
fixed=$(git -C "$send612" rev-list --reverse base..HEAD 2>/dev/null | sed -n "${nbase}p")
git -C "$send612" diff --quiet "$fixed" "$base" -- kernel include 2>/dev/null
t_ok $? "new: base-commit ${base:0:12} is the packaged tree with its $nbase BASE fix in kernel/ and include/"
t_like "$letter" "^  e08d007f9d81 \(\"sched/debug: Fix avg_vruntime\(\) usage\"\)$" \
	"and the cover letter names the BASE fix every measured kernel carries"
mapfile -t commits < <(git -C "$send612" rev-list --reverse base..HEAD)
fd54=$(of_tree "$new_tree" new 'series_patches | awk "{ print \$1 }" | grep -nxF "$(upstream_patches | tail -n1)" | cut -d: -f1')
prereq=${commits[$((fd54 - 1))]:-none}
t_is "$(echo "$letter" | sed -n 's/^prerequisite-patch-id: //p')" \
	"$(git -C "$send612" show "$prereq" 2>/dev/null | git patch-id --stable | cut -d' ' -f1)" \
	"new: the one prerequisite-patch-id is the last upstream commit re-applied (fd54d81c2c0e)"
t_like "$letter" "^  fd54d81c2c0e \(\"sched/fair: Skip SCHED_IDLE rq for SCHED_IDLE task\"\)$" \
	"and the cover letter names it"
t_like "$letter" "^ - v6.14 renamed cfs_rq->idle_h_nr_running to h_nr_idle" "and notes what differs in mainline"

# git am onto base and prerequisite, then the LOCAL aids the mails leave
# out, against the quilt-applied 6.12 series.
git clone -q --shared --no-checkout "$send612" "$tmp/am-new" &&
	git -C "$tmp/am-new" checkout -q "$prereq" &&
	git -C "$tmp/am-new" config user.name "sched-idle test" &&
	git -C "$tmp/am-new" config user.email "test@example.invalid"
out=$(git -C "$tmp/am-new" am "$tmp/new.mbox" 2>&1)
t_ok $? "new: git am applies the received mails to base and prerequisite"
[ -z "$(git -C "$tmp/am-new" status --porcelain 2>/dev/null)" ] || t_diag "$out"
kdir612=$(of_tree "$new_tree" new '"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1 &&
	"$TOP/scripts/apply-stage.sh" "$(stage_names | tail -n1)" >/dev/null 2>&1 && echo "$KDIR"' 2>/dev/null)
patches612=$(of_tree "$new_tree" new 'echo "$PATCHES"')
for p in $(of_tree "$new_tree" new 'local_patches | grep -vxF -f <(leading_unsent_patches)'); do
	# Three-way: scan-stats went in below the fix, whose lines border its.
	git -C "$tmp/am-new" apply -3 -q "$patches612/$p" || t_diag "LOCAL $p does not apply to the mails"
done
differ=$(for d in kernel include tools; do
	diff -rq "$kdir612/$d" "$tmp/am-new/$d"
done 2>&1 | head -n 5)
[ -n "$kdir612" ] || differ="the 6.12 tree could not be set to its last stage"
t_is "${differ:-none}" none "kernel/, include/ and tools/ equal the quilt-applied 6.12 series"

# A second version needs its changelog, and carries it in the cover letter.
cp -r "$patches612" "$tmp/patches"
v2()
{
	env -u KDIR TREE="$new_tree" V=2 PATCHES="$tmp/patches" RUN="$run612" OUTGOING="$tmp/v2" \
		"$TOP/scripts/format-patches.sh" 2>&1
}
t_like "$(v2)" "^error: V=2 needs a 'v2:' section in " "V=2 without a changelog refuses"
printf 'v2:\n- Reworded 2/%d (test entry).\n' "$n" >>"$tmp/patches/changes"
v2 >/dev/null
letter=$(cat "$tmp"/v2/v2-0000-cover-letter.patch 2>/dev/null)
t_like "$letter" "^Subject: \[PATCH v2 0/$n\] " "V=2 gives [PATCH v2 k/m]"
t_like "$(echo "$letter" | grep -A1 '^Changes in v2:')" "^- Reworded 2/$n \(test entry\)" \
	"and the cover letter lists the changes"

# --- PART=repro, TREE=6.1: the re-applied upstream commits ---
send PART=repro RUN="$run61" OUTGOING="$tmp/repro" PLACEHOLDER_OK=1
rc=$?
t_ok "$rc" "repro: git send-email through the loopback server"
[ "$rc" = 0 ] || t_diag "$(tail -n 5 "$tmp/send.log")"
mails >"$tmp/repro.mails" 2>"$tmp/mails.err" || t_diag "$(cat "$tmp/mails.err")"
mbox "$tmp/repro.mbox"
n=$(upstream_patches | wc -l)
t_is "$(wc -l <"$tmp/repro.mails")/$n" "5/4" "repro: one mail per re-applied upstream commit, plus the cover letter"
t_is "$(grep -c '^\[ Upstream commit [0-9a-f]\{40\} \]$' "$tmp/repro.mbox")" "$n" \
	"each names its upstream commit"
authors=$(tail -n +2 "$tmp/repro.mails" | cut -f7 | sort -u)
t_is "$authors" "From: Viresh Kumar <viresh.kumar@linaro.org>" \
	"and carries its upstream author as the body's From:"
extra=$(recipients_other_than "$tmp/repro.mails" "cc-test@example.org maintainer-test@example.org ")
[ -s "$tmp/repro.mails" ] || extra="no mails at all"
t_is "${extra:-none}" none \
	"repro: every mail goes to TO and CC only, not to get_maintainer's people or the sign-offs"
t_like "$(cat "$tmp"/repro/v1-0000-cover-letter.patch 2>/dev/null)" "not for merging" \
	"the cover letter says the commits are upstream already"

# git am onto the LOCAL revert gives the packaged tree back.
send61=$(send_tree)
mapfile -t commits < <(git -C "$send61" rev-list --reverse base..HEAD)
git clone -q --shared --no-checkout "$send61" "$tmp/am-repro" &&
	git -C "$tmp/am-repro" checkout -q "${commits[0]}" &&
	git -C "$tmp/am-repro" config user.name "sched-idle test" &&
	git -C "$tmp/am-repro" config user.email "test@example.invalid"
t_is "$(sed -n 's/^base-commit: //p' "$tmp"/repro/v1-0000-cover-letter.patch 2>/dev/null)" "${commits[0]}" \
	"repro: base-commit is the LOCAL revert"
out=$(git -C "$tmp/am-repro" am "$tmp/repro.mbox" 2>&1)
t_ok $? "repro: git am applies the received mails to the LOCAL revert"
git -C "$tmp/am-repro" diff --quiet base HEAD -- kernel include tools 2>/dev/null
t_ok $? "and kernel/, include/ and tools/ are the packaged tree's again"
