# bench/lib.bash: what the benchmarks share.  Sourced by bench/*.sh once
# they have defined die (print and exit 1) and note (a progress line).

# have CMD: CMD is on PATH; or, given as a path (a glob, for programs
# Debian keeps off PATH in versioned folders: /usr/lib/postgresql/*/bin),
# a file matches it.
have() {
	if [[ $1 == */* ]]; then
		compgen -G "$1" >/dev/null
	else
		command -v "$1" >/dev/null
	fi
}

# need CMD PACKAGE: succeeds when CMD is there (have), installing PACKAGE
# with apt-get first (as root, on Debian) where it is not; a fresh
# machine's package lists may be missing or old, so a failed install is
# retried after apt-get update.  apt's output goes to $APT_LOG (default:
# nowhere); apt waits for another apt (a test suite's) to release the
# dpkg lock.
need() {
	local apt=(apt-get -o DPkg::Lock::Timeout=600 -qq) log=${APT_LOG:-/dev/null}
	have "$1" && return 0
	[[ $EUID -eq 0 ]] && command -v apt-get >/dev/null || return 1
	note "installing $2 (for $1)"
	DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y "$2" >>"$log" 2>&1 ||
		{ "${apt[@]}" update >>"$log" 2>&1 &&
		DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y "$2" >>"$log" 2>&1; }
	have "$1"
}

# need_perf: perf, the peer the benchmarks compare with, is installed
# (linux-perf), runs for this kernel and may sample the kernel too (root,
# or perf_event_paranoid <= 1).  Dies otherwise.
need_perf() {
	local paranoid
	need perf linux-perf || die "perf is missing: apt-get install linux-perf"
	perf --version >/dev/null 2>&1 ||
	    die "perf does not run for kernel $(uname -r) (install the matching linux-perf)"
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[[ $EUID -eq 0 || $paranoid -le 1 ]] || die "perf record samples the kernel too:" \
	    "run as root or with kernel.perf_event_paranoid <= 1 (now $paranoid)"
}

# need_rate RATE: the kernel allows RATE samples a second.  Dies otherwise.
need_rate() {
	local maxrate
	maxrate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	(( $1 <= maxrate )) || die "RATE=$1 exceeds perf_event_max_sample_rate $maxrate"
}

# rec_count TOOL FILE NAME: a count of a recording: sp (a spool's summary
# counter NAME, e.g. samples) or perf (perf report --stats's "NAME events",
# e.g. SAMPLE); empty when it has none.
rec_count() {
	if [ "$1" = sp ]; then
		build/bin/sp-dump --stats --json "$2" | grep -o "\"$3\":[0-9]*" | cut -d: -f2
	else
		perf report -i "$2" --stats 2>/dev/null |
		    awk -v n="$3 events:" 'index($0, n) { print $3; exit }'
	fi
}
