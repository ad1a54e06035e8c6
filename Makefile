# Entry points only; each target runs one script from scripts/.
# Variables: KDIR=, SMP=, STAGE=, PLAN=, TIMEOUT=, V=, RUN=, TO=, CC=,
# FROM=, SMTP_SERVER=, SMTP_PORT=, DRY_RUN=, DURATION=, PANIC_ON_WARN=, KASAN=,
# MEASURE=, MEASURE_STAGES=, REPEAT=, MEASURE_DURATION=, WORKLOADS=,
# POLICIES=, HACKBENCH_RUNS=, HACKBENCH_LOOPS= (see README.md).
SHELL := /bin/bash
export KDIR SMP STAGE PLAN TIMEOUT V RUN TO FROM SMTP_SERVER SMTP_PORT DRY_RUN \
	DURATION PANIC_ON_WARN KASAN MEASURE MEASURE_STAGES REPEAT MEASURE_DURATION \
	WORKLOADS POLICIES HACKBENCH_RUNS HACKBENCH_LOOPS

.PHONY: help qemu-test check stress shell tree refresh patches send-email clean

help:
	@echo "make qemu-test   build every stage, boot each in QEMU, run PLAN (smoke),"
	@echo "                 then measure baseline against the series (report.md)"
	@echo "make check       install test deps and run the test suite (prove)"
	@echo "make stress      debug kernels, stress plan for DURATION s per stage"
	@echo "make shell       interactive guest on STAGE (default pristine)"
	@echo "make tree        git tree of the series in build/tree"
	@echo "make refresh     write build/tree's commits back into patches/"
	@echo "make patches     format-patch the sendable series into build/outgoing (V=)"
	@echo "make send-email  git send-email build/outgoing; needs TO= (DRY_RUN=1)"

qemu-test:
	@scripts/qemu-test.sh

check:
	@scripts/check.sh

stress:
	@scripts/stress.sh

shell:
	@scripts/shell.sh

tree:
	@scripts/make-tree.sh

refresh:
	@scripts/refresh-patches.sh

patches:
	@scripts/format-patches.sh

# CC is also make's C compiler, cc by default: only a CC= given on the
# command line is a mail recipient.
send-email:
	@MAIL_CC='$(if $(filter command line,$(origin CC)),$(CC))' scripts/send-email.sh

clean:
	rm -rf build/obj build/kernels build/initramfs.* build/logs
