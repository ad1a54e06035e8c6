# shellcheck shell=bash
# Common paths and helpers for the scripts in this folder. Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The kernel trees the project has a series for, each Debian's packaged
# linux-source-VERSION. The first is the default: it is the one Debian's
# linux-source package installs.
TREES="6.1 6.12"
# The tree the new work (the selftest and the SIS_UTIL fix) is mailed
# from: make patches PART=new takes no other.
NEW_WORK_TREE=6.12

# "major.minor" of the kernel tree in $1, from its Makefile; empty if none.
makefile_version()
{
	awk '/^VERSION *=/ { v = $3 } /^PATCHLEVEL *=/ { p = $3 }
		END { if (v != "" && p != "") print v "." p }' "$1/Makefile" 2>/dev/null
}

# The tree a run is for: TREE when set, else a KDIR= tree's own version,
# else the default. Everything of one tree lives apart from the other's:
# its series and patches, its build folder (tree, objects, kernels,
# initramfs) and its results, so the two never rebuild each other's
# kernels. 6.1 keeps the top-level names it has always had.
# The user's KDIR's version, read once: empty without KDIR or a Makefile.
KDIR_VERSION=$([ -z "${KDIR:-}" ] || makefile_version "$KDIR" || true)
# The user's KDIR, before the default tree's takes its place below.
USER_KDIR=${KDIR:-}
if [ -n "${TREE:-}" ]; then
	TREE_VERSION=$TREE
elif [ -n "$KDIR_VERSION" ]; then
	TREE_VERSION=$KDIR_VERSION
else
	TREE_VERSION=${TREES%% *}
fi
if [ "$TREE_VERSION" = "${TREES%% *}" ]; then
	tree_suffix=""
else
	tree_suffix=$TREE_VERSION
fi

# The build folder of tree $1.
tree_build_dir()
{
	if [ "$1" = "${TREES%% *}" ]; then
		echo "$TOP/build"
	else
		echo "$TOP/build/$1"
	fi
}

BUILD=${BUILD:-$(tree_build_dir "$TREE_VERSION")}
RESULTS=${RESULTS:-$TOP/results${tree_suffix:+/$tree_suffix}}
SERIES=${SERIES:-$TOP/series${tree_suffix:+-$tree_suffix}}
PATCHES=${PATCHES:-$TOP/patches${tree_suffix:+-$tree_suffix}}
SELFTEST_MATRIX=${SELFTEST_MATRIX:-$TOP/tests/selftest-matrix${tree_suffix:+-$tree_suffix}}
TARBALL=${TARBALL:-/usr/src/linux-source-$TREE_VERSION.tar.xz}
unset tree_suffix
# The default tree is ours to reset at will; a KDIR the user names is not.
DEFAULT_KDIR=$BUILD/linux-source-$TREE_VERSION
KDIR=${KDIR:-$DEFAULT_KDIR}

# The user's variables, their defaults and their checks: scripts/variables.
VARIABLES=$TOP/scripts/variables

# "NAME|DEFAULT|CHECK" for every variable of scripts/variables.
variable_table()
{
	awk -F'|' '/^[ \t]*(#|$)/ { next } { print $1 "|" $2 "|" $3 }' "$VARIABLES"
}

# The value of variable $1, or its default from scripts/variables.
setting()
{
	local name dflt

	if [ -n "${!1:-}" ]; then
		echo "${!1}"
		return
	fi
	while IFS='|' read -r name dflt _; do
		[ "$name" != "$1" ] || { echo "$dflt"; return; }
	done < <(variable_table)
	die "internal: $1 is not in $VARIABLES"
}

# Refuse value $2 of variable $1 with one line naming what is accepted.
bad_value()
{
	error "$1=$2: $3"
	exit 2
}

# Check value $2 of variable $1 against kind $3.
check_value()
{
	local name=$1 v=$2 kind=$3 w known

	case $kind in
	any) ;;
	bool)
		case $v in 0|1) ;; *) bad_value "$name" "$v" "want 0 or 1" ;; esac ;;
	count)
		case $v in "" | 0* | *[!0-9]*) bad_value "$name" "$v" "want a whole number of 1 or more" ;; esac ;;
	seconds)
		case $v in "" | 0* | *[!0-9]*) bad_value "$name" "$v" "want whole seconds, 1 or more" ;; esac ;;
	port)
		case $v in "" | 0* | *[!0-9]*) bad_value "$name" "$v" "want a TCP port number" ;; esac
		[ "$v" -le 65535 ] || bad_value "$name" "$v" "want a TCP port number" ;;
	version)
		case $v in [1-9] | [1-9][0-9]) ;; *) bad_value "$name" "$v" "give the series version as a number, e.g. V=2" ;; esac ;;
	memsize)
		[[ $v =~ ^[1-9][0-9]*[MG]?$ ]] || bad_value "$name" "$v" "want a size such as 512M or 1G" ;;
	accel)
		case $v in kvm | tcg | tcg,thread=multi | tcg,thread=single) ;;
		*) bad_value "$name" "$v" "want kvm, tcg, tcg,thread=multi or tcg,thread=single" ;; esac ;;
	smp)
		smp_string "$v" >/dev/null ;;
	stages)
		known="$(stage_names | paste -sd ' ') packaged"
		[ -n "${v// /}" ] || bad_value "$name" "$v" "want one or more of: $known"
		for w in $v; do
			grep -qxF -- "$w" < <(stage_names; echo packaged) ||
				bad_value "$name" "$v" "no stage '$w'; stages: $known"
		done ;;
	plan)
		known=$(plan_names | paste -sd ' ')
		grep -qxF -- "$v" < <(plan_names) ||
			bad_value "$name" "$v" "no plan '$v'; plans: $known" ;;
	workloads)
		list_of "$name" "$v" "t1 t2 p1 p2 p3 n2 n3 hp ht hf hi" ;;
	policies)
		list_of "$name" "$v" "$(tree_policies)" ;;
	tree)
		case $v in *[[:space:]]*) bad_value "$name" "$v" "want one of: $TREES" ;; esac
		case " $TREES " in
		*" $v "*) ;;
		*) bad_value "$name" "$v" "want one of: $TREES" ;;
		esac ;;
	kdir)
		# The default tree is unpacked later, by prepare-tree.sh, which
		# also checks a tree's full version.
		[ "$v" = "$DEFAULT_KDIR" ] || [ -d "$v" ] || bad_value "$name" "$v" "no such directory" ;;
	flavour)
		case $v in smp | debug | kasan) ;; *) bad_value "$name" "$v" "want smp, debug or kasan" ;; esac ;;
	part)
		case $v in new | repro) ;; *) bad_value "$name" "$v" "want new or repro" ;; esac ;;
	run)
		[ -d "$v" ] || [ -d "$RESULTS/$v" ] ||
			bad_value "$name" "$v" "no results run there or in $RESULTS" ;;
	tests)
		for w in $v; do
			[ -f "$TOP/$w" ] || [ -f "$w" ] ||
				bad_value "$name" "$v" "no test file '$w' (tests are tests/*.t)"
		done ;;
	*) die "internal: unknown check '$kind' for $name" ;;
	esac
}

# Comma-separated names from a fixed set, each once, none empty.
list_of()
{
	local w seen=,

	[ -n "$2" ] || bad_value "$1" "$2" "want a comma-separated list of: $3"
	case $2 in ,* | *, | *,,*) bad_value "$1" "$2" "want a comma-separated list of: $3" ;; esac
	for w in ${2//,/ }; do
		case " $3 " in
		*" $w "*) ;;
		*) bad_value "$1" "$2" "no '$w'; want a comma-separated list of: $3" ;;
		esac
		case $seen in *",$w,"*) bad_value "$1" "$2" "'$w' is named twice" ;; esac
		seen="$seen$w,"
	done
}

# The scan policies the measurement can set on the tree, the first being
# the kernel's defaults (SIS_UTIL on). The other takes SIS_UTIL's
# cut-off away: on 6.1 the scan is then v5.4's, bounded by SIS_PROP; 6.12
# has no SIS_PROP (removed in v6.7), so there it scans the whole LLC.
tree_policies()
{
	case $TREE_VERSION in
	6.1) echo "defaults v5.4-scan" ;;
	*) echo "defaults no-sis-util" ;;
	esac
}

# The guest plans in the initramfs (make shell's "shell" is not one).
plan_names()
{
	local f

	for f in "$TOP"/initramfs/plans/*.sh; do
		f=${f##*/}
		echo "${f%.sh}"
	done
}

# Check every variable the user set, before any work: one error line and
# exit status 2 for the first bad one.
check_settings()
{
	local name dflt kind

	while IFS='|' read -r name dflt kind; do
		[ -n "${!name+set}" ] || continue
		# make passes every exported variable, set or not, as empty.
		[ -n "${!name}" ] || continue
		check_value "$name" "${!name}" "$kind"
	done < <(variable_table)
	# Both named: they must agree.
	if [ -n "${TREE:-}" ] && [ -n "$KDIR_VERSION" ] && [ "$KDIR_VERSION" != "$TREE" ]; then
		bad_value KDIR "$KDIR" "a $KDIR_VERSION tree, but TREE=$TREE"
	fi
}

# Kernel command line for plans that trace (measure, fixtures): the sched
# events on from boot, so that no tracepoint is patched in at run time
# (initramfs/lib/workload.sh says why), with 4 MB of buffer per CPU. The
# hrtimer expiries tell the analyser whether a wakee's wait crossed a
# scheduler tick (its wait classes).
# shellcheck disable=SC2034 # used by the scripts that source this
TRACE_CMDLINE="trace_event=sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_migrate_task,timer:hrtimer_expire_entry trace_buf_size=4M"

export QUILT_PATCHES=$PATCHES QUILT_SERIES=$SERIES QUILT_PC=.pc

error()
{
	echo "error: $*" >&2
}

die()
{
	error "$@"
	exit 1
}

info()
{
	echo "$*" >&2
}

# Run one step of the pipeline with a progress line. A step that fails
# prints its own error line; this only adds which step it was.
step()
{
	local n=$1 total=$2 msg=$3

	shift 3
	info "[$n/$total] $msg"
	"$@"
}

# Every patch of the series, in order, as "patch stage" lines. A stage is
# named by a "# stage: NAME" comment on the patch's line, or by the patch
# file name without its number and suffix.
series_patches()
{
	[ -f "$SERIES" ] || return 0
	awk '
		/^[ \t]*(#|$)/ { next }
		{
			stage = ""
			if (match($0, /#[ \t]*stage:[ \t]*[A-Za-z0-9_-]+/)) {
				stage = substr($0, RSTART, RLENGTH)
				sub(/#[ \t]*stage:[ \t]*/, "", stage)
			}
			if (stage == "") {
				stage = $1
				sub(/^[0-9]+-/, "", stage)
				sub(/\.(patch|diff)$/, "", stage)
			}
			print $1, stage
		}' "$SERIES"
}

# Patches whose series comment says LOCAL: kept for this project's own
# use (the baseline), never sent upstream.
local_patches()
{
	series_tagged LOCAL
}

# The patches whose series comment holds the word $1 (LOCAL, BASE).
series_tagged()
{
	[ -f "$SERIES" ] || return 0
	awk -v tag="$1" '/^[ \t]*(#|$)/ { next } { c = $0; sub(/^[^#]*/, "", c) } index(c, tag) { print $1 }' "$SERIES"
}

# The patches that re-apply an upstream commit, in stable-backport form
# ("[ Upstream commit ID ]" under the upstream author). They are merged
# upstream already, so they are never mailed.
upstream_patches()
{
	local patch

	for patch in $(series_patches | awk '{ print $1 }'); do
		! grep -q '^\[ Upstream commit [0-9a-f]* \]$' "$PATCHES/$patch" || echo "$patch"
	done
}

# The patches make patches leaves out: the BASE and LOCAL ones and the upstream
# re-applications, in series order.
unsent_patches()
{
	local unsent

	unsent=$( { base_patches; local_patches; upstream_patches; } )
	series_patches | awk '{ print $1 }' | grep -xF -f <(echo "$unsent") || true
}

# The unsent patches that open the series. The sendable part starts after
# them; LOCAL patches further down are measuring aids, left out of mail.
leading_unsent_patches()
{
	local all unsent patch

	all=$(series_patches | awk '{ print $1 }')
	unsent=$(unsent_patches)
	for patch in $all; do
		grep -qxF "$patch" <<<"$unsent" || break
		echo "$patch"
	done
}

# The patches make patches mails for PART, in series order. new: those
# that are neither LOCAL nor an upstream re-application (the selftest and
# the SIS_UTIL fix). repro: the upstream re-applications, but not the
# BASE fixes under them.
mailed_patches()
{
	case $(setting PART) in
	new) series_patches | awk '{ print $1 }' | grep -vxF -f <(unsent_patches; echo /) || true ;;
	repro) upstream_patches | grep -vxF -f <(base_patches; echo /) || true ;;
	esac
}

# make patches and make send-email: run the calling script ("$0" "$@")
# for the tree PART is mailed from. PART=new is mailed from NEW_WORK_TREE
# only: with no TREE and no KDIR named, the script runs again with
# TREE=$NEW_WORK_TREE; a different tree named is an error. Called before
# check_settings, whose RUN check depends on the tree.
mail_tree()
{
	check_value PART "$(setting PART)" part
	[ "$(setting PART)" = new ] || return 0
	[ "$TREE_VERSION" != "$NEW_WORK_TREE" ] || return 0
	if [ -z "${TREE:-}" ] && [ -z "$USER_KDIR" ]; then
		# lib.sh set KDIR to this tree's default; the run again sets its own.
		exec env -u KDIR TREE="$NEW_WORK_TREE" "$TOP/scripts/${0##*/}" "$@"
	fi
	# A bad value of another variable is named first.
	check_settings
	die "PART=new: the new work is mailed from the $NEW_WORK_TREE series only, not from the $TREE_VERSION one (${TREE:+TREE=$TREE}${TREE:-KDIR=$KDIR}); give TREE=$NEW_WORK_TREE or no tree (PART=repro mails the reproduction)"
}

# What PART's own files add to their names: nothing for new, "-repro"
# for repro (outgoing-repro, cover-letter-repro, changes-repro).
part_suffix()
{
	[ "$(setting PART)" = new ] || echo "-$(setting PART)"
}

# Where make patches writes PART's mails and make send-email reads them.
outgoing_dir()
{
	echo "${OUTGOING:-$BUILD/outgoing$(part_suffix)}"
}

# The git tree make patches and make send-email work from: the packaged
# kernel and the series as commits (make-tree.sh), rebuilt when the series
# changes. It is not build/tree, which is the user's to edit.
send_tree()
{
	echo "${SEND_TREE:-$BUILD/send-tree}"
}

# The note of a patch file: the lines under "Notes:" that git format-patch
# --notes writes between "---" and the diffstat, each indented by four
# spaces, with the blank line before the diffstat (callers take it in
# "$(...)", which drops it); empty when there is none.
patch_notes()
{
	awk '
		!cut && /^---$/ { cut = 1; next }
		!cut { next }
		!on && /^Notes:$/ { on = 1; next }
		!on { next }
		/^    / { sub(/^    /, ""); print; next }
		/^$/ { print; next }
		{ exit }' "$1"
}

# "pristine" and then one stage per patch. The BASE patches at the head of
# a series are part of pristine, and name no stage of their own.
stage_names()
{
	echo pristine
	series_patches | awk '$2 != "pristine" { print $2 }'
}

# The patch a stage ends at: for pristine the last BASE patch, or none;
# for "packaged", which no list of stages holds, none: the tarball as
# Debian ships it, for make oops-repro.
stage_patch()
{
	local want=$1 patch stage found=""

	[ "$want" = packaged ] && return 0
	while read -r patch stage; do
		[ "$stage" != "$want" ] || found=$patch
	done < <(series_patches)
	if [ -n "$found" ] || [ "$want" = pristine ]; then
		echo "$found"
		return 0
	fi
	die "unknown stage '$want' (stages: $(stage_names | tr '\n' ' ')packaged)"
}

# Patches whose series comment says BASE: fixes the packaged tree lacks,
# applied under every stage (their stage is pristine) and never mailed.
base_patches()
{
	series_tagged BASE
}

# The files patch $1 of the series touches, one per line (may repeat).
patch_files()
{
	sed -n -e 's|^+++ b/\([^\t ]*\).*|\1|p' \
		-e 's|^--- a/\([^\t ]*\).*|\1|p' "$PATCHES/$1"
}

# True when STAGE's patch changes what a kernel is built from: a patch
# that touches only tools/ (the selftest) leaves the stage before's kernel.
stage_changes_kernel()
{
	local patch

	patch=$(stage_patch "$1")
	[ -n "$patch" ] || return 0
	patch_files "$patch" | grep -qv '^tools/'
}

# A hash of everything a stage's source depends on: the series up to and
# including the stage's patch, with the patches' contents.
stage_source_hash()
{
	local want=$1 patch stage target

	target=$(stage_patch "$want")
	{
		echo "kernel $(cat "$KDIR/.sched-idle-base" 2>/dev/null || echo "$KDIR")"
		[ -z "$target" ] || while read -r patch stage; do
			echo "$patch"
			cat "$PATCHES/$patch"
			[ "$patch" = "$target" ] && break
		done < <(series_patches)
	} | sha256sum | cut -c1-16
}

series_hash()
{
	{
		cat "$SERIES" 2>/dev/null
		series_patches | while read -r patch _; do
			cat "$PATCHES/$patch" 2>/dev/null
		done
	} | sha256sum | cut -c1-16
}

# The guest's view of a QEMU -smp string, as "cpus,sockets,threads": the
# CPUs online at boot, the packages they span, and the threads per core.
# Missing values are derived as QEMU 7.2's machine_parse_smp_config() does
# for x86 (cores preferred over sockets since 6.2). CPUs are numbered
# package by package, so the first cpus of them span only as many
# packages as they fill. Dies and clusters share a package.
smp_topology()
{
	local k v cpus=0 max=0 s=0 d=1 cl=1 c=0 t=0 per IFS=,

	for k in $1; do
		v=${k#*=}
		case $v in
		"" | 0* | *[!0-9]*) die "SMP=$1: '$k' is not a count" ;;
		esac
		case $k in
		cpus=* | [0-9]*) cpus=$v ;;
		maxcpus=*) max=$v ;;
		sockets=*) s=$v ;;
		dies=*) d=$v ;;
		clusters=*) cl=$v ;;
		cores=*) c=$v ;;
		threads=*) t=$v ;;
		*) die "SMP=$1: unknown key '${k%%=*}'" ;;
		esac
	done
	if [ "$cpus" = 0 ] && [ "$max" = 0 ]; then
		[ "$s" != 0 ] || s=1
		[ "$c" != 0 ] || c=1
		[ "$t" != 0 ] || t=1
	else
		[ "$max" != 0 ] || max=$cpus
		if [ "$c" = 0 ]; then
			[ "$s" != 0 ] || s=1
			[ "$t" != 0 ] || t=1
			c=$((max / (s * d * cl * t)))
		elif [ "$s" = 0 ]; then
			[ "$t" != 0 ] || t=1
			s=$((max / (d * cl * c * t)))
		fi
		[ "$t" != 0 ] || t=$((max / (s * d * cl * c)))
	fi
	[ "$max" != 0 ] || max=$((s * d * cl * c * t))
	[ "$cpus" != 0 ] || cpus=$max
	per=$((d * cl * c * t))
	[ "$per" != 0 ] || die "SMP=$1: no CPU in that topology"
	[ $(((cpus + per - 1) / per)) -ge "$s" ] || s=$(((cpus + per - 1) / per))
	echo "$cpus,$s,$t"
}

# SMP= as QEMU's -smp takes it: a CPU count N means one package of N
# cores; a full string is checked as the guest will see it.
smp_string()
{
	local smp=$1

	case $smp in
	*=*) ;;
	"" | 0* | *[!0-9]*) bad_value SMP "$smp" "give a CPU count or a full -smp string, e.g. SMP=4 or SMP=4,sockets=2" ;;
	*) smp="$smp,sockets=1,cores=$smp,threads=1" ;;
	esac
	(smp_topology "$smp" >/dev/null) 2>/dev/null ||
		bad_value SMP "$1" "$( (smp_topology "$smp" 2>&1 >/dev/null) | sed 's/^error: SMP=[^:]*: //')"
	echo "$smp"
}

# The -smp string of plan $1's guests. PLAN=selftest-fork boots its own,
# two LLCs of two CPUs (one per socket), where the selftest runs its fork
# group subtest: the slow path chooses a CPU inside a group of two only
# there. PLAN=oops-fork boots it too: its reproducer was found there. An
# SMP that says otherwise is refused. Every other plan boots SMP.
FORK_SMP=4,sockets=2,cores=2,threads=1
plan_smp()
{
	if [ "$1" = selftest-fork ] || [ "$1" = oops-fork ]; then
		[ -z "${SMP:-}" ] || [ "$(smp_string "$SMP")" = "$FORK_SMP" ] ||
			bad_value SMP "$SMP" "PLAN=$1 boots $FORK_SMP (two LLCs of two CPUs); leave SMP unset"
		echo "$FORK_SMP"
		return
	fi
	smp_string "$(setting SMP)"
}

# The measurement guest's -smp string. SMP when the user gave it; else one
# vCPU per host CPU this run may use ($1, default nproc), at most SMP's
# default: a vCPU thread that waits for a host CPU adds its wait to every
# wakeup latency the guest measures.
measure_smp()
{
	local host=${1:-$(nproc)} most

	if [ -n "${SMP:-}" ]; then
		smp_string "$SMP"
		return
	fi
	most=$(SMP='' setting SMP)
	smp_string $((host < most ? host : most))
}

# 1 if -smp string $1 has more vCPUs than the $2 host CPUs, else 0.
oversubscribed()
{
	local vcpus

	vcpus=$(smp_topology "$1" | cut -d, -f1)
	echo $((vcpus > $2))
}

# /dev/kvm may exist and still not work (here QEMU has aborted setting MSRs
# when the first vCPU starts, which under host load can take seconds, and
# has spun until the 60 s timeout). Only a guest that boots proves it:
# kernel $1, without an initramfs, panics for want of a root file system
# and reboots, which -no-reboot turns into a clean exit. The answer is a
# property of the host, so it is kept for the host's uptime (its boot_id)
# in ACCEL_CACHE: a hanging probe then costs its minute once, not before
# every boot.
ACCEL_CACHE=${TMPDIR:-/tmp}/sched-idle-accel.$(id -u)
probe_accel()
{
	local boot_id accel=tcg,thread=multi

	if [ -n "${ACCEL:-}" ]; then
		echo "$ACCEL"
		return
	fi
	[ -w /dev/kvm ] || { echo "$accel"; return; }
	boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null) || boot_id=unknown
	if [ "$(sed -n 1p "$ACCEL_CACHE" 2>/dev/null)" = "$boot_id" ]; then
		sed -n 2p "$ACCEL_CACHE"
		return
	fi
	if timeout 60 qemu-system-x86_64 -accel kvm -M q35 \
		-cpu max -m 256M -smp 1 -kernel "$1" -nodefaults \
		-display none -no-reboot -nic none -serial none \
		-append "panic=-1 console=ttyS0" >/dev/null 2>&1; then
		accel=kvm
	fi
	printf '%s\n%s\n' "$boot_id" "$accel" >"$ACCEL_CACHE.$$" &&
		mv "$ACCEL_CACHE.$$" "$ACCEL_CACHE"
	echo "$accel"
}

# What DRY_RUN=1 prints above a command whose accelerator a real run
# would probe for: its command shows TCG.
dry_run_accel_note()
{
	[ -n "${ACCEL:-}" ] || [ ! -w /dev/kvm ] ||
		echo "# accelerator: kvm if /dev/kvm boots a guest, else as below"
}

# The one QEMU command line of every boot and of make shell, in the array
# QEMU_CMD. usage: qemu_command ACCEL SMP KERNEL CMDLINE SERIAL SHARE
# SMP is a full -smp string; SHARE is the folder the guest sees as
# /results, read-only under RESULTS_RO=1. The guest has no network.
qemu_command()
{
	# shellcheck disable=SC2034 # the callers' array
	QEMU_CMD=(qemu-system-x86_64 -accel "$1" -M q35 -cpu max
		-m "$(setting MEM)" -smp "$2" -kernel "$3"
		-initrd "$BUILD/initramfs.cpio.gz" -append "$4"
		-nodefaults -display none -no-reboot -nic none -serial "$5"
		-name "sched-idle,debug-threads=on"
		-virtfs "local,path=$6,mount_tag=results,security_model=none,id=results${RESULTS_RO:+,readonly=on}")
}

# The guest kernel's command line for plan $1 on stage $2 with -smp $3.
guest_cmdline()
{
	echo "console=ttyS0 loglevel=5 panic=-1 oops=panic sched_idle.plan=$1 sched_idle.stage=$2 sched_idle.topo=$(smp_topology "$3")${APPEND:+ $APPEND}"
}

# Start the results run folder $1: its status says "running" until the
# caller writes "complete" or "failed", and a script that exits before
# then leaves "failed" and says where the results are.
begin_run()
{
	RUN_DIR=$1
	mkdir -p "$RUN_DIR"
	echo running >"$RUN_DIR/status"
	trap stopped_early EXIT
}

# shellcheck disable=SC2317 # called from begin_run's EXIT trap
stopped_early()
{
	[ "$(cat "$RUN_DIR/status" 2>/dev/null)" = running ] || return 0
	echo failed >"$RUN_DIR/status"
	info "results (stopped early): $RUN_DIR"
}

# Every boot of a results run, a line each in RUN/boots.tsv, with a header:
# stage, plan, the boot's folder relative to RUN (which holds its
# result.json) and the judge's exit code. The steps after the boots find
# them here, not by walking the run's folders.
record_boot()
{
	local run=$1

	[ -f "$run/boots.tsv" ] || printf 'stage\tplan\tdir\texit\n' >"$run/boots.tsv"
	printf '%s\t%s\t%s\t%s\n' "$2" "$3" "${4#"$run"/}" "$5" >>"$run/boots.tsv"
}

# "stage<TAB>absolute folder" of every boot of RUN, of plan $2 if given,
# in the order they ran.
run_boots()
{
	[ -f "$1/boots.tsv" ] || return 0
	awk -F'\t' -v run="$1" -v plan="${2:-}" \
		'NR > 1 && (plan == "" || $2 == plan) { print $1 "\t" run "/" $3 }' "$1/boots.tsv"
}

# The config fragments of a kernel flavour, in merge order.
flavour_fragments()
{
	case $1 in
	smp) echo "$TOP/configs/sched-idle.config" ;;
	nosmp|debug) echo "$TOP/configs/sched-idle.config $TOP/configs/$1.config" ;;
	kasan) echo "$TOP/configs/sched-idle.config $TOP/configs/debug.config $TOP/configs/kasan.config" ;;
	*) die "unknown kernel flavour '$1'" ;;
	esac
}

fragments_hash()
{
	# shellcheck disable=SC2002,SC2046 # several fragments, one word each
	cat $(flavour_fragments "$1") | sha256sum | cut -c1-16
}

# make in a kernel tree. When Debian's ccache is installed, its gcc
# symlinks come first in PATH: the compiler's name and so every .cmd file
# stay the same, so turning ccache on or off never forces a rebuild. With
# the base directory at the checkout, paths are hashed relative to it, and
# a second clone on the same machine (CI's) hits the same cache. CCACHE=0
# turns it off.
kmake()
{
	if [ "$(setting CCACHE)" != 0 ] && [ -x /usr/lib/ccache/gcc ]; then
		PATH=/usr/lib/ccache:$PATH CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 \
			make "$@"
	else
		make "$@"
	fi
}

kernel_dir()
{
	echo "$BUILD/kernels/$2/$1"
}

# A stage's kernel is current when neither its patches nor the config
# fragments changed since it was built.
kernel_is_current()
{
	local info

	info=$(kernel_dir "$1" "$2")/build-info
	[ -f "$info" ] &&
		grep -qxF "source_hash=$(stage_source_hash "$1")" "$info" &&
		grep -qxF "fragments_hash=$(fragments_hash "$2")" "$info"
}

# Hold a lock on the tree's build folder for the lifetime of the calling
# script, so two runs never share a tree or an object directory.
take_lock()
{
	# Nested scripts run under their caller's lock.
	[ -z "${SCHED_IDLE_LOCKED:-}" ] || return 0
	export SCHED_IDLE_LOCKED=$$
	lock_folder "$BUILD"
}

# take_lock on every tree's build folder: make check's tests work on all.
take_all_locks()
{
	local t

	[ -z "${SCHED_IDLE_LOCKED:-}" ] || return 0
	take_lock
	for t in $TREES; do
		[ "$(tree_build_dir "$t")" = "$BUILD" ] || lock_folder "$(tree_build_dir "$t")"
	done
}

# Lock folder $1 (its .lock) on a file descriptor kept open until exit.
lock_folder()
{
	local fd

	mkdir -p "$1"
	exec {fd}>"$1/.lock"
	if ! flock -n "$fd"; then
		if [ "$(setting LOCK_WAIT)" = 1 ]; then
			info "waiting for another run in this checkout to finish..."
			flock "$fd"
		else
			die "another run holds $1/.lock; wait for it or set LOCK_WAIT=1"
		fi
	fi
}
