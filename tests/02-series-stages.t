#!/bin/bash
# Stages come from series: pristine first, then one per patch; an empty
# series leaves pristine alone; an unknown stage is refused. A patch's
# note (format-patch --notes) is read back for make tree.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 10
t_is "$(stage_names | tr '\n' ' ')" "pristine baseline tracking fallback consistent balance selftest scan-stats sis-util selftest-sis root-idle selftest-nested " \
	"stages of the series"
empty=$(mktemp)
printf '# nothing here\n' >"$empty"
t_is "$(SERIES=$empty stage_names | tr '\n' ' ')" "pristine " "an empty series has only pristine"
rm -f "$empty"
out=$(stage_patch nosuchstage 2>&1)
t_like "$out" "^error: unknown stage 'nosuchstage'" "unknown stage is refused with one line"
t_like "$(head -n 20 "$SERIES")" "0001-LOCAL-.*# stage: baseline \(LOCAL" "the baseline patch is marked LOCAL in series"
t_is "$(unset SERIES PATCHES; TREE=6.12 bash -c ". '$TOP/scripts/lib.sh'; stage_names" | tr '\n' ' ')" \
	"pristine baseline tracking fallback consistent balance idle-wakee selftest scan-stats sis-util selftest-sis root-idle selftest-nested sis-util-v1 abel-rfc " "stages of the 6.12 series (series-6.12)"
t_like "$(head -n 20 "$TOP/series-6.12")" "0001-LOCAL-.*# stage: baseline \(LOCAL" "the 6.12 baseline patch is marked LOCAL"
# A BASE patch is part of pristine; "packaged" is the tarball, in no list.
t_is "$(unset SERIES PATCHES; TREE=6.12 bash -c ". '$TOP/scripts/lib.sh'; echo \"\$(base_patches)|\$(stage_patch pristine)|\$(stage_patch packaged)|\$(unsent_patches | head -n1)\"")" \
	"0000-sched-debug-Fix-avg_vruntime-usage.patch|0000-sched-debug-Fix-avg_vruntime-usage.patch||0000-sched-debug-Fix-avg_vruntime-usage.patch" \
	"6.12: pristine ends at the BASE fix, packaged at no patch, and the fix is never mailed"
t_is "$(stage_patch pristine)|$(stage_patch packaged)|$(stage_source_hash pristine)" "||$(stage_source_hash packaged)" \
	"6.1, no BASE patch: pristine and packaged are the same tree"

# A note as git format-patch --notes writes it: indented under "Notes:"
# below "---", an empty line inside it, the diffstat after it.
notes=$(mktemp)
cat >"$notes" <<'PATCH'
Subject: [PATCH] x

Body.
---
Not a note.

Notes:
    Measured on QEMU.
    
    Second paragraph.

 kernel/sched/fair.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c
    indented diff text
PATCH
t_is "$(patch_notes "$notes")" "$(printf 'Measured on QEMU.\n\nSecond paragraph.')" \
	"a patch's note is read back without its indent, up to the diffstat"
t_is "$(patch_notes "$TOP/patches/0002-sched-fair-Start-tracking-SCHED_IDLE-tasks-count-in-.patch")" "" \
	"a patch without a note has none"
rm -f "$notes"
