#!/bin/bash
# The README's first sending step, PLAN=selftest over every stage, and
# PLAN=selftest-fork, whose guest has two LLCs so that the slow path
# chooses a CPU inside a group, judged against tests/selftest-matrix
# (-6.12 for that tree): each exits 0 on the healthy tree, every stage
# matches its column exactly (expected failures included), and the
# summary says which failures were expected. A matrix with one
# expectation flipped makes the same command exit non-zero and name the
# stage and subtest: fast_path on 6.1, fork_group_idle on 6.12.
. "$(dirname "$0")/lib.sh"
matrix=$(t_tree_file selftest-matrix)
read -r -a cols < <(grep -v '^#' "$matrix" | head -n1)
mapfile -t rows < <(grep -v '^#' "$matrix" | tail -n +2)
stages=("${cols[@]:1}")
plans=(selftest selftest-fork)
t_plan $((1 + ${#plans[@]} + ${#stages[@]} * (${#rows[@]} + 2 * ${#plans[@]}) + 1 + 4))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A row named PLAN:SUBTEST is that plan's; the others are PLAN=selftest's.
row_plan()
{
	case $1 in
	*:*) echo "${1%%:*}" ;;
	*) echo selftest ;;
	esac
}

t_is "$(stage_names | sort | tr '\n' ' ')" "$(printf '%s\n' "${stages[@]}" | sort | tr '\n' ' ')" \
	"the matrix has a column for every stage of the series"
for plan in "${plans[@]}"; do
	rc=0
	# A run of its own name, read whether or not it completed (results/latest
	# moves only for a complete one): a stage that went wrong then fails its
	# own tests, and the others still say what they found.
	id=matrix${plan#selftest}
	out=$(RUN_ID=$id PLAN=$plan "$TOP/scripts/qemu-test.sh" 2>&1) || rc=$?
	run=$RESULTS/$id
	t_ok $((rc != 0)) "PLAN=$plan exits 0 when every stage is as the matrix says (exit $rc)"
	# The error lines, or where the run stopped when it printed none.
	[ "$rc" = 0 ] || t_diag "$(echo "$out" | grep -E '^error:' | head -n 20 | grep . || echo "$out" | tail -n 5)"
	summary=$(cat "$run/summary.txt" 2>/dev/null)

	for i in "${!stages[@]}"; do
		stage=${stages[$i]}
		dir=$run/$stage/$plan
		# The summary names the failures the matrix expects, in its order.
		fails=$(for row in "${rows[@]}"; do
			read -r -a f <<<"$row"
			[ "$(row_plan "${f[0]}")" != "$plan" ] || [ "${f[$((i + 1))]}" != fail ] ||
				echo "${f[0]#*:}"
		done | paste -sd ' ')
		t_like "$(grep "^$stage " <<<"$summary")" " ${fails:+expected fail: }${fails:-pass}\$" \
			"$plan, stage $stage: the summary says ${fails:+expected fail: }${fails:-pass}"
		t_is "$(python3 "$TOP/scripts/judge.py" --show "$dir/result.json" expectation 2>/dev/null)" match \
			"$plan, stage $stage: the judge found it as the matrix says"
		for row in "${rows[@]}"; do
			read -r -a f <<<"$row"
			[ "$(row_plan "${f[0]}")" = "$plan" ] || continue
			want=${f[$((i + 1))]}
			t_is "$(t_subtest "$dir" "${f[0]#*:}")" "$want" "stage $stage: ${f[0]} $want"
		done
	done
	if [ "$plan" = selftest ]; then
		# The cover letter's table, from this real run (tests/40 mails one
		# made of recorded boots).
		table=$("$TOP/scripts/cover-results.sh" "$run" 2>&1)
		missing=$(for s in "${stages[@]}"; do grep -q "^  $s " <<<"$table" || echo "$s"; done | paste -sd ' ')
		t_is "${missing:-none}" none "make patches' table from this run has a row for every stage"
		[ -z "$missing" ] || t_diag "$(head -n 3 <<<"$table")"
	fi
done

# The mutant, one boot of baseline through the same command: on 6.1 the
# matrix claims fast_path passes there, on 6.12 that fork_group_idle
# fails.
if [ "$TREE_VERSION" = 6.1 ]; then
	mplan=selftest row=fast_path flip=pass
	said="fast_path not ok \\(expected ok\\); fast_path: [0-9]+ of [0-9]+ wakeups stacked on the busy CPU0"
else
	mplan=selftest-fork row=selftest-fork:fork_group_idle flip=fail
	said="fork_group_idle ok \\(expected not ok\\); fork_group_idle: [0-9]+ forks: [0-9]+ on CPU3, [0-9]+ on CPU2, [0-9]+ on CPUs 0-1"
fi
t_flip_matrix "$matrix" baseline "$row" "$flip" >"$tmp/matrix"
t_is "$(diff "$matrix" "$tmp/matrix" | grep -c '^>')" 1 "the mutant matrix differs in one row"
rc=0
out=$(SELFTEST_MATRIX=$tmp/matrix PLAN=$mplan STAGE=baseline "$TOP/scripts/qemu-test.sh" 2>&1) || rc=$?
t_is "$rc" 1 "with $row flipped on baseline, PLAN=$mplan exits 1"
t_like "$out" "^error: stage baseline \(plan $mplan\): UNEXPECTED: $said\$" \
	"with one error line naming the stage and the subtest, and what it measured"
t_is "$(grep -c '^error:' <<<"$out")" 1 "and no other error line"
