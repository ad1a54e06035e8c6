#!/usr/bin/env python3
"""The host's view of a QEMU guest's vCPU threads: time on a host CPU and
time spent runnable but waiting for one, per workload window.

usage: vcpu-steal.py record --pidfile F --console F --done F --out STEAL_TSV [--pin]
       vcpu-steal.py read [--proc ROOT] PID

Under TCG a vCPU is a host thread, and the guest is never told when that
thread waits for a host CPU: there is no steal time in the guest. A woken
guest task waits for its vCPU thread as well as for the guest scheduler,
so the latency a run measures is only the guest's when this wait is small.
The host kernel keeps it per thread in /proc/PID/task/TID/schedstat:
"time on a CPU (ns), time runnable on a run queue (ns), timeslices".

"record" waits for QEMU's -pidfile, follows the console file until QEMU
is gone or the file --done exists (the caller creates it once QEMU has
exited, so that a QEMU that never started ends the monitor too), and at each
"# window begin NAME" and "# window end NAME" line the guest plan prints
reads the schedstat of every vCPU thread (QEMU names them "CPU N/TCG"
with -name debug-threads=on). For each window it writes, per vCPU:

    window<TAB>vcpu<TAB>tid<TAB>wall_ns<TAB>run_ns<TAB>wait_ns

and, when QEMU exits, one "boot" window per vCPU from its first reading to
its last. A window whose end never came is not written. The
console is polled every 20 ms, so a window's edges are known to about that,
against windows of seconds.

With --pin, vCPU N is pinned to the Nth host CPU this process may use,
wrapping round when there are more vCPUs than CPUs; QEMU names each vCPU
thread from inside it, so every poll pins the ones not yet seen.

"read" prints "tid<TAB>vcpu<TAB>run_ns<TAB>wait_ns" for the vCPU threads
of PID under ROOT (default /proc): the reader "record" uses, testable
against a copy of /proc.
"""

import argparse
import os
import re
import signal
import sys
import time

VCPU_RE = re.compile(r"^CPU (\d+)/")
MARK_RE = re.compile(r"^# window (begin|end) (\S+)\s*$")
POLL_S = 0.02


def vcpu_threads(pid, root="/proc"):
    """{vcpu index: (tid, run_ns, wait_ns)} for the vCPU threads of pid."""
    out = {}
    task = os.path.join(root, str(pid), "task")
    for tid in os.listdir(task):
        try:
            with open(os.path.join(task, tid, "comm")) as f:
                comm = f.read().strip()
            m = VCPU_RE.match(comm)
            if not m:
                continue
            with open(os.path.join(task, tid, "schedstat")) as f:
                fields = f.read().split()
        except (FileNotFoundError, ProcessLookupError):
            # The thread ended between listdir and open (ENOENT), or
            # between open and read (ESRCH).
            continue
        if len(fields) < 2:
            raise ValueError(f"{task}/{tid}/schedstat: want 'run_ns wait_ns ...'")
        out[int(m.group(1))] = (int(tid), int(fields[0]), int(fields[1]))
    return out


def delta_rows(name, before, after, wall_ns):
    rows = []
    for cpu in sorted(after):
        if cpu not in before or before[cpu][0] != after[cpu][0]:
            continue
        tid, run1, wait1 = after[cpu]
        _, run0, wait0 = before[cpu]
        rows.append(f"{name}\t{cpu}\t{tid}\t{wall_ns}\t{run1 - run0}\t{wait1 - wait0}\n")
    return rows


def pin(vcpus, pinned):
    allowed = sorted(os.sched_getaffinity(0))
    for cpu, (tid, _, _) in vcpus.items():
        if tid in pinned:
            continue
        try:
            os.sched_setaffinity(tid, {allowed[cpu % len(allowed)]})
        except OSError as e:
            print(f"vcpu-steal: cannot pin vCPU {cpu} (tid {tid}): {e}", file=sys.stderr)
        pinned.add(tid)


def alive(pid):
    return os.path.exists(f"/proc/{pid}")


def record(args):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    def over():
        return stop or os.path.exists(args.done)

    pid = None
    while pid is None and not over():
        try:
            with open(args.pidfile) as f:
                text = f.read().strip()
            pid = int(text) if text else None
        except FileNotFoundError:
            pass
        if pid is None:
            time.sleep(POLL_S)
    rows = []
    first = {}  # vcpu: (time, reading), its first
    last = {}  # vcpu: (time, reading), its latest
    opened = {}
    pinned = set()
    console = None
    partial = ""
    while pid is not None:
        ended = over() or not alive(pid)
        now = time.monotonic_ns()
        try:
            snap = vcpu_threads(pid)
        except (FileNotFoundError, ProcessLookupError):
            snap = {}
        for cpu, reading in snap.items():
            first.setdefault(cpu, (now, reading))
            last[cpu] = (now, reading)
        if args.pin:
            pin(snap, pinned)
        if console is None and os.path.exists(args.console):
            console = open(args.console, errors="replace")
        if console is not None:
            partial += console.read()
            *lines, partial = partial.split("\n")
            for line in lines:
                m = MARK_RE.match(line.strip("\r"))
                if not m or not snap:
                    continue
                if m.group(1) == "begin":
                    opened[m.group(2)] = (now, snap)
                elif m.group(2) in opened:
                    t0, s0 = opened.pop(m.group(2))
                    rows += delta_rows(m.group(2), s0, snap, now - t0)
        if ended:
            break
        time.sleep(POLL_S)
    for cpu in sorted(last):
        (t0, r0), (t1, r1) = first[cpu], last[cpu]
        if t1 > t0:
            rows += delta_rows("boot", {cpu: r0}, {cpu: r1}, t1 - t0)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write("window\tvcpu\ttid\twall_ns\trun_ns\twait_ns\n")
        f.writelines(rows)
    os.replace(tmp, args.out)
    return 0


def read(args):
    for cpu, (tid, run, wait) in sorted(vcpu_threads(args.pid, args.proc).items()):
        print(f"{tid}\t{cpu}\t{run}\t{wait}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--pidfile", required=True)
    r.add_argument("--console", required=True)
    r.add_argument("--done", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--pin", action="store_true")
    q = sub.add_parser("read")
    q.add_argument("--proc", default="/proc")
    q.add_argument("pid", type=int)
    args = ap.parse_args()
    return record(args) if args.cmd == "record" else read(args)


if __name__ == "__main__":
    sys.exit(main())
