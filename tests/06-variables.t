#!/bin/bash
# Every user variable is checked on the host before any work: a bad value
# gets one "error:" line naming the variable, the value and what is
# accepted, exit status 2, and no results folder. How long the refusal took
# is printed, not asserted. The README
# lists exactly the variables of scripts/variables. DRY_RUN=1 prints the
# QEMU command lines of make qemu-test and make shell, which come from one
# builder, and the measurement's time limit is not TIMEOUT's.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"

# VAR=value entry-point error-pattern, one case a line.
cases=(
	"SMP=abc qemu-test give a CPU count"
	"SMP=0 qemu-test give a CPU count"
	"SMP=4,foo=2 qemu-test unknown key 'foo'"
	"STAGE=nosuch qemu-test no stage 'nosuch'; stages: pristine baseline"
	"PLAN=nosuch qemu-test no plan 'nosuch'; plans: .*smoke"
	"TIMEOUT=abc qemu-test want whole seconds"
	"WORKLOADS=nosuch qemu-test no 'nosuch'; want a comma-separated list of: t1 t2"
	"WORKLOADS=t1,,t2 qemu-test want a comma-separated list"
	"POLICIES=bogus qemu-test no 'bogus'; want a comma-separated list of: defaults v5.4-scan"
	"POLICIES=v5 qemu-test no 'v5'; want a comma-separated list"
	"WORKLOADS=t qemu-test no 't'; want a comma-separated list"
	"REPEAT=0 qemu-test want a whole number of 1 or more"
	"MEASURE_DURATION=4s qemu-test want a whole number"
	"WINDOWS=0 qemu-test want a whole number of 1 or more"
	"ORDER_SEED=-3 qemu-test want a whole number"
	"CALIBRATE_STAGE=nosuch calibrate no stage 'nosuch'"
	"CALIBRATE_BOOTS=two calibrate want a whole number"
	"MEASURE_STAGES=nosuch qemu-test no stage 'nosuch'"
	"MEASURE_TIMEOUT=-1 qemu-test want whole seconds"
	"HACKBENCH_RUNS=0 qemu-test want a whole number"
	"MEASURE=yes qemu-test want 0 or 1"
	"MEM=lots qemu-test want a size such as 512M or 1G"
	"ACCEL=hax qemu-test want kvm, tcg"
	"KDIR=/nonexistent qemu-test no such directory"
	"TREE=5.10 qemu-test want one of: 6.1 6.12"
	"TREE=6.12.118 qemu-test want one of: 6.1 6.12"
	"DRY_RUN=2 qemu-test want 0 or 1"
	"DURATION=abc stress want a whole number"
	"KASAN=2 stress want 0 or 1"
	"PANIC_ON_WARN=yes stress want 0 or 1"
	"OOPS_FLAVOUR=nosmp oops-repro want smp, debug or kasan"
	"OOPS_BOOTS=0 oops-repro want a whole number of 1 or more"
	"OOPS_DURATION=1m oops-repro want whole seconds"
	"STAGE=nosuch oops-repro no stage 'nosuch'"
	"STAGE=nosuch shell no stage 'nosuch'"
	"V=x patches give the series version as a number"
	"RUN=/nonexistent patches no results run there"
	"SMTP_PORT=99999 send-email want a TCP port number"
	"TESTS=tests/nosuch.t check no test file 'tests/nosuch.t'"
)
t_plan $((${#cases[@]} + 17))

for c in "${cases[@]}"; do
	read -r assign target want <<<"$c"
	var=${assign%%=*}
	before=$(find "$RESULTS" -mindepth 1 | wc -l)
	start=$(date +%s%N)
	rc=0
	# make -s, as a user would type it; make adds its own "***" line.
	out=$(cd "$TOP" && make -s "$target" "$assign" 2>&1) || rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	errors=$(grep '^error:' <<<"$out")
	after=$(find "$RESULTS" -mindepth 1 | wc -l)
	ok=0
	[ "$(grep -c . <<<"$errors")" = 1 ] && [[ $errors =~ ^error:\ ${assign//+/\\+}:\ $want ]] &&
		grep -q "Error 2$" <<<"$out" && [ "$before" = "$after" ] || ok=1
	t_ok "$ok" "make $target $assign: one error line naming $var, exit 2, no results (took $ms ms)"
	[ "$ok" = 0 ] || t_diag "rc=$rc, $ms ms, results $before -> $after
$out"
done

# PLAN=selftest-fork boots a topology of its own; an SMP that differs is
# refused before any build.
rc=0
out=$(cd "$TOP" && make -s qemu-test PLAN=selftest-fork SMP=4 2>&1) || rc=$?
ok=0
[ "$rc" = 2 ] && [[ $(grep '^error:' <<<"$out") =~ ^error:\ SMP=4:\ PLAN=selftest-fork\ boots\ 4,sockets=2,cores=2,threads=1 ]] || ok=1
t_ok "$ok" "make qemu-test PLAN=selftest-fork SMP=4: refused, naming the topology the plan boots"
[ "$ok" = 0 ] || t_diag "rc=$rc: $out"
rc=0
out=$(cd "$TOP" && make -s oops-repro SMP=2 2>&1) || rc=$?
ok=0
[ "$rc" = 2 ] && [[ $(grep '^error:' <<<"$out") =~ ^error:\ SMP=2:\ PLAN=oops-fork\ boots\ 4,sockets=2 ]] || ok=1
t_ok "$ok" "make oops-repro SMP=2: refused, naming the topology its plan boots"
[ "$ok" = 0 ] || t_diag "rc=$rc: $out"

# The README's variable list is scripts/variables'.
# shellcheck disable=SC2016 # backquotes of Markdown, not of the shell
readme=$(sed -n '/^## Variables/,/^## /p' "$TOP/README.md" | sed -n 's/^| `\([A-Z_]*\)` |.*/\1/p' | sort | paste -sd ' ')
table=$(variable_table | cut -d'|' -f1 | sort | paste -sd ' ')
t_is "$readme" "$table" "the README lists exactly the variables of scripts/variables"
# And every script reads only variables from that list or internal ones.
t_is "$(unset SMP MEASURE_STAGES; echo "$(setting SMP) $(setting MEASURE_STAGES) $(SMP=2 setting SMP)")" \
	"4 baseline consistent balance scan-stats sis-util 2" "defaults come from scripts/variables, a set value wins"
# The measurement guest is sized to the host unless SMP= says otherwise.
t_is "$(unset SMP; measure_smp 2)" "2,sockets=1,cores=2,threads=1" "measurement: one vCPU per host CPU (2 host CPUs)"
t_is "$(unset SMP; measure_smp 64)" "4,sockets=1,cores=4,threads=1" "measurement: at most SMP's default (64 host CPUs)"
t_is "$(SMP=3 measure_smp 2)" "3,sockets=1,cores=3,threads=1" "measurement: SMP= overrides the sizing"
t_is "$(oversubscribed 3,sockets=1,cores=3,threads=1 2) $(oversubscribed 2,sockets=1,cores=2,threads=1 2) $(oversubscribed 4,sockets=2,cores=2,threads=1 8)" \
	"1 0 0" "oversubscribed: more vCPUs than host CPUs, and only then"
# A fresh checkout: no tree unpacked yet, and the default KDIR is fine.
fresh=$(mktemp -d)
out=$(env -u KDIR BUILD="$fresh" DRY_RUN=1 STAGE=pristine MEASURE=0 "$TOP/scripts/qemu-test.sh" 2>&1)
rm -rf "$fresh"
t_like "$out" "^timeout .*qemu-system" "the default KDIR passes before the tree is unpacked"

# The dry run: commands, no boot, no results, no lock.
before=$(find "$RESULTS" -mindepth 1 | wc -l)
out=$(cd "$TOP" && make -s qemu-test DRY_RUN=1 STAGE="pristine baseline" MEASURE_STAGES="pristine baseline" \
	REPEAT=1 TIMEOUT=77 SMP=2 2>&1)
t_is "$(grep -c "^timeout --kill-after=10 77 'qemu-system-x86_64'" <<<"$out")" 2 \
	"DRY_RUN=1 prints a QEMU command per stage, under TIMEOUT"
# The command after a comment line; on a host with a writable /dev/kvm,
# the accelerator note (dry_run_accel_note) comes in between.
after() { grep -A2 "^$1" | grep -m1 -v '^#'; }
t_like "$(after '# measurement boot 1/2' <<<"$out")" "^timeout --kill-after=10 [0-9]+ 'qemu-system" \
	"and the measurement's boots"
t_is "$(grep -A1 '^# measurement boot' <<<"$out" | grep -c "^timeout --kill-after=10 77 ")" 0 \
	"whose time limit is their own, not TIMEOUT"
t_is "$(find "$RESULTS" -mindepth 1 | wc -l)" "$before" "and writes no results"
t_like "$(grep -m1 '^timeout' <<<"$out")" "'-smp' '2,sockets=1,cores=2,threads=1' .*sched_idle.topo=2,1,1" \
	"SMP=2 becomes one package of two cores, which the guest checks"
# Without SMP=, the smoke boots keep SMP's default and the measurement
# boots get one vCPU per host CPU this run may use.
sized=$(cd "$TOP" && env -u SMP make -s qemu-test DRY_RUN=1 STAGE="pristine baseline" \
	MEASURE_STAGES="pristine baseline" REPEAT=1 2>&1)
want=$(unset SMP; measure_smp "$(nproc)")
t_like "$(grep -m1 '^timeout' <<<"$sized")" "'-smp' '4,sockets=1,cores=4,threads=1'" "no SMP=: smoke boots get SMP's default"
t_like "$(after '# measurement boot 1/2' <<<"$sized")" "'-smp' '$want' .*'-pidfile'" \
	"and measurement boots $want, with the pid file the steal monitor reads"
# make shell's command is the same builder's: only the plan and the
# console differ from a boot's.
shell=$(cd "$TOP" && make -s shell DRY_RUN=1 STAGE=pristine SMP=2 2>&1)
norm()
{
	sed -E "s/^timeout --kill-after=10 [0-9]+ //; s/sched_idle.plan=[a-z]+//; s/'-serial' '[^']*'//;
		s/'-virtfs' '[^']*'//"
}
t_is "$(grep -v '^#' <<<"$shell" | norm)" "$(grep -m1 '^timeout' <<<"$out" | norm)" \
	"make shell and the boots share one QEMU command line"
