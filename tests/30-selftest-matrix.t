#!/bin/bash
# Boot every stage with the selftest plan and assert tests/selftest-matrix
# exactly: each subtest passes, fails or skips as the matrix says.
. "$(dirname "$0")/lib.sh"
matrix=$TOP/tests/selftest-matrix
read -r -a cols < <(grep -v '^#' "$matrix" | head -n1)
mapfile -t rows < <(grep -v '^#' "$matrix" | tail -n +2)
stages=("${cols[@]:1}")
t_plan $((${#stages[@]} * (${#rows[@]} + 1)))

out=$(PLAN=selftest STAGE="${stages[*]}" "$TOP/scripts/qemu-test.sh" 2>&1)
t_diag "$(echo "$out" | tail -n $((${#stages[@]} + 2)))"
run=$RESULTS/latest

# Result of SUBTEST in a KTAP log: pass, fail, skip or missing.
result()
{
	awk -v name="$2" '
		$1 == "ok" && $3 == "#" && $4 == "SKIP" {
			n = $5; sub(/:$/, "", n)
			if (n == name) { print "skip"; found = 1; exit }
			next
		}
		$1 == "ok" && $3 == name { print "pass"; found = 1; exit }
		$1 == "not" && $4 == name { print "fail"; found = 1; exit }
		END { if (!found) print "missing" }' "$1"
}

for i in "${!stages[@]}"; do
	stage=${stages[$i]}
	dir=$run/$stage/selftest
	verdict=$(cat "$dir/verdict" 2>/dev/null || echo "no verdict")
	# A failing subtest is allowed (the matrix says which); a crash, a
	# timeout or an infrastructure error never is.
	t_like "$verdict" "^(pass|test failure)" "stage $stage: the selftest ran to its end"
	[[ "$verdict" =~ ^(pass|test\ failure) ]] || t_diag "$(tail -n 5 "$dir/console.log" 2>/dev/null)"
	for row in "${rows[@]}"; do
		read -r -a f <<<"$row"
		want=${f[$((i + 1))]}
		got=$(result "$dir/ktap.log" "${f[0]}" 2>/dev/null || echo missing)
		t_is "$got" "$want" "stage $stage: ${f[0]} $want"
		[ "$got" = "$want" ] ||
			t_diag "$(grep -E "^# ${f[0]}|^(not )?ok [0-9]+ (# SKIP )?${f[0]}" "$dir/ktap.log")"
	done
done
