# Entry points only; each target runs one script from scripts/.
# Variables: KDIR=, SMP=, STAGE=, PLAN=, TIMEOUT= (see README.md).
SHELL := /bin/bash
export KDIR SMP STAGE PLAN TIMEOUT

.PHONY: help qemu-test check shell tree refresh clean

help:
	@echo "make qemu-test   build every stage, boot each in QEMU, run PLAN (smoke)"
	@echo "make check       install test deps and run the test suite (prove)"
	@echo "make shell       interactive guest on STAGE (default pristine)"
	@echo "make tree        git tree of the series in build/tree"
	@echo "make refresh     write build/tree's commits back into patches/"

qemu-test:
	@scripts/qemu-test.sh

check:
	@scripts/check.sh

shell:
	@scripts/shell.sh

tree:
	@scripts/make-tree.sh

refresh:
	@scripts/refresh-patches.sh

clean:
	rm -rf build/obj build/kernels build/initramfs.* build/logs
