# Entry points only; each target runs one script from scripts/.
# The variables, their defaults and their checks are in scripts/variables
# (and the README); every script checks them before any work.
SHELL := /bin/bash
# CC is make's C compiler too: send-email takes it only from the command line.
export $(filter-out CC,$(shell sed -n 's/^\([A-Z_]*\)|.*/\1/p' scripts/variables))

.PHONY: help qemu-test calibrate check check-quick stress oops-repro shell tree refresh patches send-email clean

help:
	@echo "make qemu-test   build every stage, boot each in QEMU, run PLAN (smoke),"
	@echo "                 then measure baseline against the series (report.md)"
	@echo "make calibrate   boot one stage CALIBRATE_BOOTS times: how often the"
	@echo "                 report's rule finds a difference that is not there"
	@echo "make check       install test deps and run the whole test suite (prove)"
	@echo "make check-quick the tests that need no kernel build and no boot"
	@echo "make stress      debug kernels, stress plan for DURATION s per stage"
	@echo "make oops-repro  boot 6.12's pick_task_fair() oops reproducer OOPS_BOOTS"
	@echo "                 times per STAGE (default pristine); TREE=6.12"
	@echo "make shell       interactive guest on STAGE (default pristine)"
	@echo "make tree        git tree of the series in build/tree"
	@echo "make refresh     write build/tree's commits back into patches/"
	@echo "make patches     format-patch the new work (6.12) into build/6.12/outgoing,"
	@echo "                 or PART=repro the reproduction (V=)"
	@echo "make send-email  git send-email those mails; needs TO= (DRY_RUN=1, PART=)"

qemu-test:
	@scripts/qemu-test.sh

calibrate:
	@scripts/calibrate.sh

check:
	@scripts/check.sh

check-quick:
	@scripts/check.sh --quick

stress:
	@scripts/stress.sh

oops-repro:
	@scripts/oops-repro.sh

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

# Both trees' build products; the unpacked trees and build/tree stay.
clean:
	rm -rf build/obj build/kernels build/initramfs.* build/logs
	rm -rf build/6.12/obj build/6.12/kernels build/6.12/initramfs.* build/6.12/logs
