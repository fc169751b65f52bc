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

# stats: folded stacks (root first, ';'-separated, a space and the count
# last; names may hold spaces) on stdin; prints "samples complete
# unnamed frames" on its first line, then "count<TAB>leaf" per leaf.
# The rules are in the header of bench/realworld.sh.
stats() {
	awk 'function unnamed(f) { return f == "[unknown]" || f ~ /^0x[0-9a-f]+$/ ||
	    f ~ /\+0x[0-9a-f]+$/ }
	{
		n = $NF
		s = substr($0, 1, length($0) - length(n) - 1)
		k = split(s, f, ";")
		for (i = 1; i <= k; i++)
			sub(/_\[k\]$/, "", f[i])	# sp-fold marks kernel frames
		samples += n
		r = f[1]
		sub(/\.abi0$/, "", r)
		if (r ~ /^(_start|__libc_start_main(_impl)?|__libc_start_call_main|(__|__GI___)?clone3?|start_thread)$/ ||
		    r ~ /^runtime\.(goexit|mstart|systemstack|rt0_go|morestack|mcall|asmcgocall|sigtramp)$/ ||
		    (unnamed(r) && k > 1 && f[2] ~ /^__libc_start_main(_impl)?$/))
			complete += n
		for (i = 1; i <= k; i++) {
			if (f[i] == "[truncated]")
				continue
			frames += n
			if (unnamed(f[i]))
				bad += n
		}
		leaf[f[k]] += n
	}
	END {
		print samples + 0, complete + 0, bad + 0, frames + 0
		for (l in leaf)
			printf "%d\t%s\n", leaf[l], l
	}'
}

# perf_fold: perf script -F comm,pid,tid,ip,sym,dso on stdin, folded stacks
# (root first, as sp-fold prints them) on stdout.  A sample is a paragraph:
# a header line, then its callchain leaf first, one "IP SYM (DSO)" line per
# frame, "(inlined)" for DSO on an inline frame.  Written for this bench.
# For some addresses (most of Rust's) perf prints the function's symbol
# first, then the inline chain at the same IP, innermost first, ending
# with the function itself under its DWARF name (rtree::unit, then
# search_node ... unit): that symbol line is a duplicate and is dropped,
# so that the leaf is the innermost inline function, as where perf puts
# the symbol last (glibc's) and as sp-fold does.
perf_fold() {
	awk 'BEGIN { RS = ""; FS = "\n" }
	{
		k = 0
		for (i = 2; i <= NF; i++) {	# leaf first
			line = $i
			sub(/^[ \t]+/, "", line)
			ip = line
			sub(/ .*/, "", ip)
			sym = substr(line, length(ip) + 2)
			dso = ""
			if (match(sym, / \([^()]*\)$/)) {
				dso = substr(sym, RSTART + 2, RLENGTH - 3)
				sym = substr(sym, 1, RSTART - 1)
			}
			k++
			fip[k] = ip; fsym[k] = sym; fdso[k] = dso
		}
		s = ""
		last = ""
		for (i = k; i >= 1; i--) {	# root first
			ip = fip[i]; sym = fsym[i]; dso = fdso[i]
			if (dso != "inlined" && i < k && fip[i + 1] == ip && fdso[i + 1] == "inlined")
				continue
			if (dso ~ /^\[kernel/ || dso ~ /\.ko$/ || (ip ~ /^ffff/ && length(ip) == 16)) {
				if (last == "[kernel]")
					continue
				sym = "[kernel]"
			} else if (sym == "[unknown]" || sym == "") {
				m = dso
				sub(/.*\//, "", m)
				sym = (dso == "" || dso == "[unknown]") ? "0x" ip : m "+0x" ip
			}
			gsub(/;/, ":", sym)
			s = s (s == "" ? "" : ";") sym
			last = sym
		}
		if (s == "")
			s = "[unknown]"	# a sample without a chain
		c[s]++
	}
	END { for (s in c) print s, c[s] }'
}

# spool_addrs SPOOL DIR: every file-backed frame of SPOOL as an ELF
# address of its module (the spool holds file offsets; the module's
# PT_LOAD table, from readelf, maps them), so that addr2line and its
# peers resolve the very addresses sp-sym does, with the same debug
# files.  Writes DIR/addrs.KEY (one per module file, sorted, unique) and
# DIR/addr-modules ("KEY PATH" lines); prints the number of distinct
# addresses.
spool_addrs() {
	local spl=$1 dir=$2 m path key n total=0
	build/bin/sp-dump --json "$spl" | awk -v dir="$dir" '
		function num(k,  r) { if (!match($0, "\"" k "\":[0-9]+")) return ""
			r = substr($0, RSTART, RLENGTH); sub(/.*:/, "", r); return r }
		/"kind":"module"/ && match($0, /"path":"\/[^"]*"/) {
			p = substr($0, RSTART + 8, RLENGTH - 9); path[num("id")] = p }
		/"kind":"frame"/ && (num("module") in path) {
			print num("rel_ip") > (dir "/off." num("module")) }
		END { for (m in path) print m, path[m] > (dir "/modules") }'
	: >"$dir/addr-modules"
	while read -r m path; do
		[[ -s $dir/off.$m && -r $path ]] || continue
		key=$(printf '%s' "$path" | cksum | cut -d' ' -f1)
		readelf -lW "$path" | awk '$1 == "LOAD" { print $2, $3, $5 }' |
		    while read -r o v s; do echo $((o)) $((v)) $((s)); done >"$dir/loads"
		sort -un "$dir/off.$m" | awk 'NR == FNR { o[NR] = $1; v[NR] = $2; s[NR] = $3; n = NR; next }
			{ for (i = 1; i <= n; i++) if ($1 >= o[i] && $1 < o[i] + s[i]) {
				printf "0x%x\n", $1 - o[i] + v[i]; break } }' "$dir/loads" - \
		    >>"$dir/addrs.$key"
		grep -qxF "$key $path" "$dir/addr-modules" || echo "$key $path" >>"$dir/addr-modules"
	done <"$dir/modules"
	while read -r key path; do
		sort -u -o "$dir/addrs.$key" "$dir/addrs.$key"
		n=$(wc -l <"$dir/addrs.$key")
		total=$((total + n))
		note "$(basename "$path"): $n distinct addresses"
	done <"$dir/addr-modules"
	echo "$total"
}

# cpu CMD...: user+sys seconds of CMD and its children (bash's time),
# its output discarded.
cpu() {
	local TIMEFORMAT='%U %S'
	{ time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f\n", $1 + $2 }'
}

# peer DIR CMD...: CMD... MODULE <DIR/addrs.KEY for every module of
# DIR/addr-modules (spool_addrs), one run per module, as a user of
# addr2line would (CMD ends with its option for the file: -e).
peer() {
	local dir=$1 key path
	shift
	while read -r key path; do
		"$@" "$path" <"$dir/addrs.$key"
	done <"$dir/addr-modules"
}

# need_llvm_symbolizer: llvm-symbolizer (Debian's llvm) on PATH, or dies.
need_llvm_symbolizer() {
	need llvm-symbolizer llvm || die "llvm-symbolizer is missing: apt-get install llvm"
}
