#!/bin/bash
# Stages come from series: pristine first, then one per patch; an empty
# series leaves pristine alone; an unknown stage is refused.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 4
t_is "$(stage_names | tr '\n' ' ')" "pristine baseline tracking fallback consistent balance selftest scan-stats sis-util selftest-sis " \
	"stages of the series"
empty=$(mktemp)
printf '# nothing here\n' >"$empty"
t_is "$(SERIES=$empty stage_names | tr '\n' ' ')" "pristine " "an empty series has only pristine"
rm -f "$empty"
out=$(stage_patch nosuchstage 2>&1)
t_like "$out" "^error: unknown stage 'nosuchstage'" "unknown stage is refused with one line"
t_like "$(head -n 20 "$SERIES")" "0001-LOCAL-.*# stage: baseline \(LOCAL" "the baseline patch is marked LOCAL in series"
