# shellcheck shell=bash
# Common paths and helpers for the scripts in this folder. Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
RESULTS=${RESULTS:-$TOP/results}
# The default tree is ours to reset at will; a KDIR the user names is not.
DEFAULT_KDIR=$BUILD/linux-source-6.1
KDIR=${KDIR:-$DEFAULT_KDIR}
SERIES=${SERIES:-$TOP/series}
PATCHES=${PATCHES:-$TOP/patches}
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}

# Kernel command line for plans that trace (measure, fixtures): the sched
# events on from boot, so that no tracepoint is patched in at run time
# (initramfs/lib/workload.sh says why), with 4 MB of buffer per CPU.
# shellcheck disable=SC2034 # used by the scripts that source this
TRACE_CMDLINE="trace_event=sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_migrate_task trace_buf_size=4M"

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
	[ -f "$SERIES" ] || return 0
	awk '/^[ \t]*(#|$)/ { next } { c = $0; sub(/^[^#]*/, "", c) } c ~ /LOCAL/ { print $1 }' "$SERIES"
}

# The LOCAL patches that open the series. The sendable part starts after
# them; LOCAL patches further down are measuring aids, left out of mail.
leading_local_patches()
{
	local all locals patch

	all=$(series_patches | awk '{ print $1 }')
	locals=$(local_patches)
	for patch in $all; do
		grep -qxF "$patch" <<<"$locals" || break
		echo "$patch"
	done
}

# The git tree make patches and make send-email work from: the packaged
# kernel and the series as commits (make-tree.sh), rebuilt when the series
# changes. It is not build/tree, which is the user's to edit.
send_tree()
{
	echo "${SEND_TREE:-$BUILD/send-tree}"
}

# "pristine" and then one stage per patch.
stage_names()
{
	echo pristine
	series_patches | awk '{ print $2 }'
}

# The patch a stage ends at; empty for pristine.
stage_patch()
{
	local want=$1 patch stage

	[ "$want" = pristine ] && return 0
	while read -r patch stage; do
		if [ "$stage" = "$want" ]; then
			echo "$patch"
			return 0
		fi
	done < <(series_patches)
	die "unknown stage '$want' (stages: $(stage_names | tr '\n' ' '))"
}

# A hash of everything a stage's source depends on: the series up to and
# including the stage's patch, with the patches' contents.
stage_source_hash()
{
	local want=$1 patch stage

	{
		echo "kernel $(cat "$KDIR/.sched-idle-base" 2>/dev/null || echo "$KDIR")"
		[ "$want" = pristine ] || while read -r patch stage; do
			echo "$patch"
			cat "$PATCHES/$patch"
			[ "$stage" = "$want" ] && break
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

# Hold a lock on the checkout for the lifetime of the calling script, so two
# runs in one checkout never share a tree or an object directory.
take_lock()
{
	# Nested scripts run under their caller's lock.
	[ -z "${SCHED_IDLE_LOCKED:-}" ] || return 0
	export SCHED_IDLE_LOCKED=$$
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.lock"
	if ! flock -n 9; then
		if [ "${LOCK_WAIT:-0}" = 1 ]; then
			info "waiting for another run in this checkout to finish..."
			flock 9
		else
			die "another run holds $BUILD/.lock; wait for it or set LOCK_WAIT=1"
		fi
	fi
}
