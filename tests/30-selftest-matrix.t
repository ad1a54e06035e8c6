#!/bin/bash
# The README's first sending step, PLAN=selftest over every stage, judged
# against tests/selftest-matrix (-6.12 for that tree): it exits 0 on the
# healthy tree, every stage
# matches its column exactly (expected failures included), and the summary
# says which failures were expected. A matrix with one expectation flipped
# makes the same command exit non-zero and name the stage and subtest.
. "$(dirname "$0")/lib.sh"
matrix=$(t_tree_file selftest-matrix)
read -r -a cols < <(grep -v '^#' "$matrix" | head -n1)
mapfile -t rows < <(grep -v '^#' "$matrix" | tail -n +2)
stages=("${cols[@]:1}")
# The mutant's four tests boot once more, on 6.1 only: SELFTEST_MATRIX
# takes the same path through qemu-test.sh whichever tree is built.
nmutant=0
[ "$TREE_VERSION" != 6.1 ] || nmutant=4
t_plan $((${#stages[@]} * (${#rows[@]} + 2) + 3 + nmutant))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t_is "$(stage_names | sort | tr '\n' ' ')" "$(printf '%s\n' "${stages[@]}" | sort | tr '\n' ' ')" \
	"the matrix has a column for every stage of the series"
rc=0
# A run of its own name, read whether or not it completed (results/latest
# moves only for a complete one): a stage that went wrong then fails its
# own tests, and the others still say what they found.
out=$(RUN_ID=matrix PLAN=selftest "$TOP/scripts/qemu-test.sh" 2>&1) || rc=$?
run=$RESULTS/matrix
t_ok $((rc != 0)) "PLAN=selftest exits 0 when every stage is as the matrix says (exit $rc)"
# The error lines, or where the run stopped when it printed none.
[ "$rc" = 0 ] || t_diag "$(echo "$out" | grep -E '^error:' | head -n 20 | grep . || echo "$out" | tail -n 5)"
summary=$(cat "$run/summary.txt" 2>/dev/null)

for i in "${!stages[@]}"; do
	stage=${stages[$i]}
	dir=$run/$stage/selftest
	# The summary names the failures the matrix expects, in its order.
	fails=$(for row in "${rows[@]}"; do
		read -r -a f <<<"$row"
		[ "${f[$((i + 1))]}" != fail ] || echo "${f[0]}"
	done | paste -sd ' ')
	t_like "$(grep "^$stage " <<<"$summary")" " ${fails:+expected fail: }${fails:-pass}\$" \
		"stage $stage: the summary says ${fails:+expected fail: }${fails:-pass}"
	t_is "$(python3 "$TOP/scripts/judge.py" --show "$dir/result.json" expectation 2>/dev/null)" match \
		"stage $stage: the judge found it as the matrix says"
	for row in "${rows[@]}"; do
		read -r -a f <<<"$row"
		want=${f[$((i + 1))]}
		got=$(t_subtest "$dir" "${f[0]}")
		t_is "$got" "$want" "stage $stage: ${f[0]} $want"
	done
done
# The cover letter's table, from this real run (tests/40 mails one made
# of recorded boots).
table=$("$TOP/scripts/cover-results.sh" "$run" 2>&1)
missing=$(for s in "${stages[@]}"; do grep -q "^  $s " <<<"$table" || echo "$s"; done | paste -sd ' ')
t_is "${missing:-none}" none "make patches' table from this run has a row for every stage"
[ -z "$missing" ] || t_diag "$(head -n 3 <<<"$table")"

# The mutant: the matrix claims fast_path passes on baseline. One boot,
# of baseline only, through the same command.
[ "$nmutant" != 0 ] || exit 0
t_flip_matrix "$matrix" baseline fast_path pass >"$tmp/matrix"
t_is "$(diff "$matrix" "$tmp/matrix" | grep -c '^>')" 1 "the mutant matrix differs in one row"
rc=0
out=$(SELFTEST_MATRIX=$tmp/matrix PLAN=selftest STAGE=baseline "$TOP/scripts/qemu-test.sh" 2>&1) || rc=$?
t_is "$rc" 1 "with one expectation flipped, PLAN=selftest exits 1"
t_like "$out" "^error: stage baseline \(plan selftest\): UNEXPECTED: fast_path not ok \(expected ok\); fast_path: [0-9]+ of [0-9]+ wakeups stacked on the busy CPU0$" \
	"with one error line naming the stage and the subtest, and what it measured"
t_is "$(grep -c '^error:' <<<"$out")" 1 "and no other error line"
