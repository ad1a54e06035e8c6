#!/usr/bin/env python3
"""Judge one finished boot and write its result.json.

usage: judge.py OUTDIR [--expect MATRIX --column STAGE]
       judge.py --show RESULT_JSON FIELD    print one field (dotted path)
       judge.py --subtests RESULT_JSON      "name<TAB>result" lines
       judge.py --diagnostics RESULT_JSON   every diagnostic line, in order

OUTDIR is what scripts/run-qemu.sh leaves behind: console.log, qemu.log,
provenance (KEY=VALUE lines, with qemu_exit and timeout_s) and guest/, the
folder the guest wrote into. The judge reads only those files, so it runs
as well on a recorded boot as on a fresh one; it writes result.json,
ktap.log (the plan's KTAP, for people) and, after a kernel splat,
splat.txt. It is the project's one KTAP parser: everything downstream
reads result.json.

With --expect, every subtest is compared with the column STAGE of the
expected matrix (tests/selftest-matrix): a subtest that fails where the
matrix says fail is an expected failure, not a test failure. A row named
PLAN:SUBTEST is for the boots of that plan (selftest-fork, whose guest
has two LLCs), a row without a plan for PLAN=selftest boots. A matrix
without that column, or --expect none (a tree the matrix was not
written for), gives "no expectation": then only a crash, a timeout
or an infrastructure error fails the boot, never a subtest.

Exit status, one per class (after virtme-ng):
  0 pass   1 fail   2 kernel splat   3 timeout   4 infrastructure

kunit.py's parser (tools/testing/kunit) is not used: in 6.1 it does not
take kselftest's nameless "ok N # SKIP reason" lines, which
ksft_test_result_skip() prints.
"""

import json
import re
import sys
from pathlib import Path

SCHEMA = 1
CLASSES = {"pass": 0, "fail": 1, "splat": 2, "timeout": 3, "infrastructure": 4}
# die()'s header, "<trap>: <error code> [#<n>]", is the first line of an
# oops whose trap prints no BUG: line before it: "int3: 0000 [#1] SMP", or
# "invalid opcode: 0000 [#1]" from a BUG() without CONFIG_DEBUG_BUGVERBOSE.
# Without it the excerpt and the error named the panic that followed.
SPLAT_RE = re.compile(
    r"[a-z0-9 ]+: [0-9a-f]{4} \[#[0-9]+\]|"
    r"Kernel panic|Oops|BUG:|WARNING:|rcu_sched self-detected stall|"
    r"rcu: INFO:|detected stalls on CPUs|blocked for more than [0-9]+ seconds|"
    r"general protection fault|kernel BUG at")
VERSION_RE = re.compile(r"^(KTAP version 1|TAP version 1[34])$")
# A kernel message can share the console line with the version line, on
# either side of it (the warn fixture has "KTAP version 1WARNING: ...").
VERSION_IN_RE = re.compile(r"(KTAP version 1|TAP version 1[34])")
PLAN_RE = re.compile(r"^1\.\.([0-9]+)(?:\s*#\s*(SKIP)\b\s*(.*))?$", re.I)
RESULT_RE = re.compile(
    r"^(ok|not ok) ([0-9]+)(?: - | |$)(.*)$")
DIRECTIVE_RE = re.compile(r"^(.*?)\s*#\s*(SKIP|TODO|XFAIL)\b\s*(.*)$", re.I)
WORDS = {"pass": "ok", "fail": "not ok", "skip": "skip", "todo": "todo", "missing": "missing"}


class KtapError(Exception):
    pass


def read_provenance(path):
    prov = {}
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                prov[key] = value
    return prov


def extract_ktap(text):
    """The plan's own KTAP: from its version line to the init's closing
    line, without the kernel's messages in between."""
    out = []
    started = False
    for line in text.splitlines():
        if not started:
            m = VERSION_IN_RE.search(line)
            if not m:
                continue
            started = True
            line = m.group(1)
        elif line.startswith("sched-idle: plan "):
            break
        if started and (VERSION_RE.match(line) or PLAN_RE.match(line) or
                        RESULT_RE.match(line) or line.startswith("#") or
                        line.startswith("Bail out!")):
            out.append(line)
    return out


def parse_ktap(lines):
    """Subtests of a flat KTAP or TAP 13 log. Diagnostic lines before a
    result belong to it, as the plans and kselftest print them. The plan
    may come first or, in TAP 13, last; "1..0 # SKIP reason" is a plan
    that skips everything (kselftest's ksft_exit_skip())."""
    if not lines or not VERSION_RE.match(lines[0]):
        raise KtapError("no KTAP version line")
    planned = None
    skip_all = None
    subtests = []
    pending = []
    trailer = []
    bail = None
    for line in lines[1:]:
        m = PLAN_RE.match(line)
        if m:
            if planned is not None:
                raise KtapError("a second plan line")
            planned = int(m.group(1))
            if m.group(2):
                skip_all = m.group(3).strip() or "skipped"
            continue
        if line.startswith("Bail out!"):
            bail = line[len("Bail out!"):].strip()
            break
        m = RESULT_RE.match(line)
        if not m:
            pending.append(line[1:].strip() if line.startswith("#") else line)
            continue
        num = int(m.group(2))
        if num != len(subtests) + 1:
            raise KtapError(f"result {num} where {len(subtests) + 1} was due")
        name, directive, reason = m.group(3).strip(), None, ""
        d = DIRECTIVE_RE.match(name)
        if d:
            name, directive, reason = d.group(1).strip(), d.group(2).upper(), d.group(3)
        elif "#" in name:
            name, _, reason = (part.strip() for part in name.partition("#"))
        # kselftest: "ok N # SKIP name: reason".
        if not name and ":" in reason:
            name, _, reason = (part.strip() for part in reason.partition(":"))
        if directive == "SKIP":
            result = "skip"
        elif directive == "TODO":
            # Known not to work yet: neither a pass nor a failure.
            result = "todo"
        else:
            result = "pass" if m.group(1) == "ok" else "fail"
        subtests.append({"number": num, "name": name or f"#{num}",
                         "result": result, "directive": directive,
                         "reason": reason.strip(), "diagnostics": pending})
        pending = []
    trailer = pending
    if planned is None and bail is None:
        raise KtapError("no plan line (1..N)")
    if skip_all is not None and subtests:
        raise KtapError("results after a plan that skips everything")
    return planned, subtests, trailer, bail, skip_all


class MatrixError(Exception):
    pass


def read_matrix(path, column, plan="selftest"):
    """{subtest: pass|fail|skip} for one stage and plan, or None without a
    column. A row "PLAN:SUBTEST" is for that plan's boots, a plain
    "SUBTEST" for PLAN=selftest's."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise MatrixError(f"cannot read the expected matrix {path}: {e.strerror}")
    rows = [line.split() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]
    if not rows:
        raise MatrixError(f"expected matrix {path} is empty")
    header = rows[0]
    if column not in header[1:]:
        return None
    i = header.index(column)
    want = {}
    for row in rows[1:]:
        if len(row) != len(header) or row[i] not in ("pass", "fail", "skip"):
            raise MatrixError(f"expected matrix {path}: bad row '{' '.join(row)}'")
        row_plan, _, name = row[0].rpartition(":")
        if (row_plan or "selftest") == plan:
            want[name] = row[i]
    return want


def why(test):
    """A failed subtest with the diagnostic line just above it."""
    diag = test["diagnostics"][-1] if test["diagnostics"] else ""
    if diag.startswith(test["name"] + ":"):
        return diag
    return f"{test['name']}: {diag}" if diag else test["name"]


def judge(outdir, expect=None, column=None):
    prov = read_provenance(outdir / "provenance")
    stage = prov.get("stage", "unknown")
    plan = prov.get("plan", "unknown")
    console = outdir / "console.log"
    text = console.read_text(errors="replace").replace("\r", "") if console.exists() else ""
    res = {
        "schema": SCHEMA, "stage": stage, "plan": plan,
        "verdict": None, "exit_code": None, "summary": None, "message": None,
        "errors": [], "subtests": [], "diagnostics": [],
        "expectation": None, "expected_failures": [], "unexpected": [],
        "splat": None, "boot_seconds": None, "provenance": prov,
    }
    if "boot_seconds" in prov and prov["boot_seconds"].isdigit():
        res["boot_seconds"] = int(prov["boot_seconds"])
    where = f"stage {stage} (plan {plan})"

    def done(verdict, summary, message, errors=None):
        res["verdict"] = verdict
        res["exit_code"] = CLASSES[verdict]
        res["summary"] = summary
        res["message"] = message
        res["errors"] = errors if errors is not None else ([message] if verdict != "pass" else [])
        return res

    lines = text.splitlines()
    splat = next((i for i, line in enumerate(lines) if SPLAT_RE.search(line)), None)
    if splat is not None:
        res["splat"] = "\n".join(lines[max(splat - 3, 0):splat + 13])
        # From the match on: a plan's output may share the line.
        line = lines[splat][SPLAT_RE.search(lines[splat]).start():].strip()
        return done("splat", "kernel failure", f"kernel failure on {where}: {line}; console: {console}")
    qrc = prov.get("qemu_exit", "")
    if qrc in ("124", "137"):
        return done("timeout", "timeout",
                    f"timeout: {where} did not power off within {prov.get('timeout_s', '?')}s; console: {console}")
    if qrc != "0":
        qlog = outdir / "qemu.log"
        last = qlog.read_text(errors="replace").strip().splitlines()[-1:] if qlog.exists() else []
        return done("infrastructure", "infrastructure",
                    f"infrastructure: QEMU exited {qrc or '?'} on stage {stage}: {' '.join(last)}")
    infra = next((line for line in lines if line.startswith("sched-idle: infra: ")), None)
    if infra:
        return done("infrastructure", "infrastructure",
                    f"infrastructure: {infra[len('sched-idle: infra: '):]} (stage {stage})")
    ktap = extract_ktap(text)
    (outdir / "ktap.log").write_text("".join(line + "\n" for line in ktap))
    if not ktap:
        return done("infrastructure", "infrastructure",
                    f"infrastructure: no KTAP output from plan {plan} on stage {stage}; console: {console}")
    if not (outdir / "guest" / "guest-done").exists():
        return done("infrastructure", "infrastructure",
                    f"infrastructure: the guest wrote no results for plan {plan} on stage {stage}")
    try:
        planned, subtests, trailer, bail, skip_all = parse_ktap(ktap)
    except KtapError as e:
        return done("infrastructure", "infrastructure",
                    f"infrastructure: cannot parse the KTAP of stage {stage} (plan {plan}): {e}")
    res["subtests"] = subtests
    res["diagnostics"] = trailer
    # A bail-out is the test program giving up: a crash of the test, which
    # fails a boot whatever the expectation.
    if bail is not None:
        return done("fail", "bailed out",
                    f"test failure on {where}: bailed out after {len(subtests)} of {planned or '?'}: {bail}")
    if skip_all is not None:
        return done("pass", f"skipped: {skip_all}", f"skipped: {where}: {skip_all}")
    if len(subtests) != planned:
        return done("infrastructure", "infrastructure",
                    f"infrastructure: cannot parse the KTAP of stage {stage} (plan {plan}): "
                    f"{len(subtests)} results for a plan of {planned}")
    failed = [t for t in subtests if t["result"] == "fail"]
    counts = {r: sum(t["result"] == r for t in subtests) for r in ("pass", "fail", "skip", "todo")}
    tally = f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped"
    if counts["todo"]:
        tally += f", {counts['todo']} todo"

    if expect is None:
        if not failed:
            return done("pass", "pass", f"pass: {where}: {tally}")
        detail = "; ".join(why(t) for t in failed[:3])
        return done("fail", "fail: " + " ".join(t["name"] for t in failed),
                    f"test failure on {where}: {detail}")

    try:
        want = None if expect == "none" else read_matrix(expect, column, plan)
    except MatrixError as e:
        return done("infrastructure", "infrastructure", f"infrastructure: {e}")
    if want is None:
        res["expectation"] = "none"
        note = f" ({len(failed)} not ok: {' '.join(t['name'] for t in failed)})" if failed else ""
        return done("pass", "no expectation" + note,
                    f"no expectation: {where}: {tally}", errors=[])
    got = {t["name"]: t["result"] for t in subtests}
    unexpected = []
    for name in list(want) + [n for n in got if n not in want]:
        g, w = got.get(name, "missing"), want.get(name, "missing")
        if g != w:
            unexpected.append({"name": name, "got": g, "want": w})
    res["unexpected"] = unexpected
    res["expected_failures"] = [t["name"] for t in subtests
                                if t["result"] == "fail" and want.get(t["name"]) == "fail"]
    if unexpected:
        res["expectation"] = "mismatch"
        # What the subtest said, so that a CI log that shows only this
        # line still says what was measured: its last diagnostic, named
        # as why() names it, or else the reason of a skip.
        said = {t["name"]: why(t) if t["diagnostics"] else t["reason"] for t in subtests}
        errors = [f"stage {stage} (plan {plan}): UNEXPECTED: {u['name']} {WORDS[u['got']]} "
                  f"(expected {WORDS[u['want']]})"
                  + (f"; {said[u['name']]}" if said.get(u["name"]) else "")
                  for u in unexpected]
        summary = "UNEXPECTED: " + ", ".join(
            f"{u['name']} {WORDS[u['got']]} (expected {WORDS[u['want']]})" for u in unexpected)
        return done("fail", summary, errors[0], errors=errors)
    res["expectation"] = "match"
    if res["expected_failures"]:
        summary = "expected fail: " + " ".join(res["expected_failures"])
    else:
        summary = "pass"
    return done("pass", summary, f"{summary}: {where}: as {Path(expect).name} expects ({tally})")


def field(data, path):
    for key in path.split("."):
        if isinstance(data, list):
            data = data[int(key)]
        else:
            data = data.get(key)
        if data is None:
            return ""
    return data


def main(argv):
    if len(argv) == 3 and argv[0] == "--show":
        value = field(json.loads(Path(argv[1]).read_text()), argv[2])
        print(json.dumps(value) if isinstance(value, (dict, list)) else value)
        return 0
    if len(argv) == 2 and argv[0] == "--diagnostics":
        data = json.loads(Path(argv[1]).read_text())
        for t in data["subtests"]:
            for line in t["diagnostics"]:
                print(line)
        for line in data["diagnostics"]:
            print(line)
        return 0
    if len(argv) == 2 and argv[0] == "--subtests":
        for t in json.loads(Path(argv[1]).read_text())["subtests"]:
            print(f"{t['name']}\t{t['result']}")
        return 0
    expect = column = None
    if len(argv) == 5 and argv[1] == "--expect" and argv[3] == "--column":
        expect, column = argv[2], argv[4]
    elif len(argv) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 4
    outdir = Path(argv[0]).resolve()
    if not outdir.is_dir():
        print(f"error: no boot folder {outdir}", file=sys.stderr)
        return 4
    res = judge(outdir, expect, column)
    if res["splat"]:
        (outdir / "splat.txt").write_text(res["splat"] + "\n")
    tmp = outdir / "result.json.tmp"
    tmp.write_text(json.dumps(res, indent=1) + "\n")
    tmp.replace(outdir / "result.json")
    if res["splat"]:
        for line in res["splat"].splitlines():
            print("  | " + line, file=sys.stderr)
    if res["errors"]:
        for e in res["errors"]:
            print("error: " + e, file=sys.stderr)
    else:
        print(res["message"], file=sys.stderr)
    return res["exit_code"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
