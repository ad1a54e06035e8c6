#!/bin/bash
# The main job without its measurement, on the packaged tree and the
# series' last stage: each builds, boots and passes the smoke plan, the
# run is recorded with its provenance and becomes results/latest.
# Every other stage is built and booted through the same qemu-test.sh by
# tests/30, with the selftest: the stages differ only in the scheduler,
# which the selftest exercises, while the smoke plan checks what they
# share (the topology the host asked for, rt-app, chrt --idle). Booting
# all of them twice cost about four minutes of make check.
. "$(dirname "$0")/lib.sh"
stages="pristine $(stage_names | tail -n1)"
t_plan $((6 + $(echo "$stages" | wc -w)))

# The measurement has its own test (tests/61-measure.t).
out=$(MEASURE=0 STAGE="$stages" "$TOP/scripts/qemu-test.sh" 2>&1)
rc=$?
t_is "$rc" 0 "qemu-test exits 0"
[ "$rc" = 0 ] || t_diag "$(echo "$out" | tail -n 20)"
t_like "$out" "^\[1/[0-9]+\] checking packages" "progress lines"
latest=$RESULTS/latest
t_is "$(cat "$latest/status" 2>/dev/null)" complete "results/latest is a complete run"
for stage in $stages; do
	t_like "$(grep "^$stage " "$latest/summary.txt")" " pass$" "stage $stage passes the smoke plan"
done
prov=$latest/pristine/smoke/provenance
missing=""
for key in tree tree_source series_hash kernel_config_hash kernel_source_hash qemu qemu_command accel smp host_load; do
	grep -q "^$key=." "$prov" || missing="$missing $key"
done
t_is "${missing:-none}" none "provenance records tree, series, config, QEMU and its command, accelerator, topology, host load"
t_is "$(python3 "$TOP/scripts/judge.py" --show "$latest/pristine/smoke/result.json" provenance.series_hash) $(python3 "$TOP/scripts/judge.py" --show "$latest/pristine/smoke/result.json" provenance.tree)" \
	"$(series_hash) $TREE_VERSION" "result.json carries the provenance, with the tree"
t_is "$(t_subtest "$latest/pristine/smoke" idle_policy)" pass "SCHED_IDLE policy verified in the guest"
