# What tests/vm/run.sh fetches through apt: qemu and the cross compiler
# (installed), busybox-static and Debian's kernels (downloaded into
# build/vm/, never installed).  The other suites' and architectures'
# indexes live in private apt directories, one per architecture, whose
# sources are the machine's own Debian archive and security URIs with the
# suites swapped; apt checks them against Debian's keyring as usual.  The
# machine's dpkg is not told of a foreign architecture: only
# `apt-get download` and dpkg-deb run on the arm64 packages.

VM_APT=$PWD/$VM/apt	# absolute: apt-get download runs elsewhere

# vapt_dir ARCH: the private apt directory of ARCH: amd64's is
# build/vm/apt as it always was, another's build/vm/apt-ARCH.
vapt_dir() {
	if [ "$1" = amd64 ]; then echo "$VM_APT"; else echo "$VM_APT-$1"; fi
}

# apt_sources: "URI SUITE" for each deb source of the machine's apt
# configuration, one-line (.list) and deb822 (.sources) files alike.
apt_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] && awk '$1 == "deb" { i = 2
			if ($2 ~ /^\[/) while ($(i++) !~ /\]$/) ;
			print $i, $(i + 1) }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] && awk '
		function flush(  n, m, i, j, U, S) {
			if (t ~ /(^| )deb( |$)/) { n = split(u, U, " "); m = split(s, S, " ")
				for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print U[i], S[j] }
			t = u = s = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		$1 == "Types:" { t = $0; sub(/^Types:/, "", t) }
		$1 == "URIs:" { u = $0; sub(/^URIs:/, "", u) }
		$1 == "Suites:" { s = $0; sub(/^Suites:/, "", s) }
		$1 == "Enabled:" && $2 == "no" { t = "" }
		END { flush() }' "$f"
	done
}

# vapt ARCH PROGRAM ARGS...: apt-get or apt-cache on ARCH's private
# directory, with ARCH as apt's only architecture.
vapt() {
	local a=$1 p=$2 d
	d=$(vapt_dir "$a")
	shift 2
	"$p" -q -o Dir::Etc::sourcelist="$d/sources.list" \
	    -o Dir::Etc::sourceparts="$d/parts" -o Dir::State::Lists="$d/lists" \
	    -o Dir::Cache="$d/cache" -o Dir::State::status="$d/status" \
	    -o APT::Architecture="$a" -o APT::Architectures="$a" \
	    -o APT::Sandbox::User=root "$@"
}

# apt_setup ARCH SUITE...: ARCH's private directory's sources (each SUITE
# from the machine's Debian archive, SUITE-security from its security
# archive) and indexes.  Says why and fails where it cannot.
apt_setup() {
	local a=$1 code arch sec key s d
	shift
	d=$(vapt_dir "$a")
	code=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	arch=$(apt_sources | awk -v c="$code" '$2 == c { print $1; exit }')
	sec=$(apt_sources | awk -v c="$code-security" '$2 == c { print $1; exit }')
	if [ -z "$code" ] || [ -z "$arch" ]; then
		echo "the machine's apt sources have no Debian archive for its release (${code:-unknown})"
		return 1
	fi
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$key" ] && key="[signed-by=$key] " || key=
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/parts"
	touch "$d/status"
	for s in "$@"; do
		echo "deb $key$arch $s main"
		[ -z "$sec" ] || echo "deb $key$sec $s-security main"
	done >"$d/sources.list"
	vapt "$a" apt-get update >>"$VM/apt.log" 2>&1 ||
	    { echo "apt-get update of the private $a sources failed (build/vm/apt.log)"; return 1; }
}

# fetch_kernel ARCH META SERIES: "IMAGE VERSION": the image package of
# the newest version SERIES.x (5.10, 6.1, 6.12) of the metapackage META
# (linux-image-cloud-amd64, linux-image-arm64) that ARCH's indexes know,
# its vmlinuz extracted to $VM/kernels/IMAGE/vmlinuz (kept between runs).
# arm64's vmlinuz is a plain Image, which qemu boots as it is.
fetch_kernel() {
	local a=$1 meta=$2 v img d=$VM/kernels
	v=$(vapt "$a" apt-cache madison "$meta" |
	    awk -F' *[|] *' -v s="$3." 'index($2, s) == 1 { print $2 }' |
	    sort -V | tail -1)
	[ -n "$v" ] || return 1
	img=$(vapt "$a" apt-cache depends "$meta=$v" |
	    awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
	[ -n "$img" ] || return 1
	if [ ! -s "$d/$img/vmlinuz" ]; then
		rm -rf "$d/$img" && mkdir -p "$d/$img/deb" || return 1
		(cd "$d/$img/deb" && vapt "$a" apt-get download "$img") >>"$VM/apt.log" 2>&1 || return 1
		dpkg-deb --fsys-tarfile "$d/$img"/deb/*.deb |
		    tar -xO --wildcards './boot/vmlinuz-*' >"$d/$img/vmlinuz.part" &&
		    mv "$d/$img/vmlinuz.part" "$d/$img/vmlinuz" || return 1
		rm -rf "$d/$img/deb"
	fi
	echo "$img $(vapt "$a" apt-cache show "$img" | awk '$1 == "Version:" { print $2; exit }')"
}

# fetch_busybox ARCH: the path of ARCH's static busybox (busybox-static,
# the newest ARCH's private indexes know), extracted under
# $VM/busybox (amd64) or $VM/busybox-ARCH; /usr/bin/busybox since trixie,
# /bin/busybox before.
fetch_busybox() {
	local d=$VM/busybox b
	[ "$1" = amd64 ] || d=$VM/busybox-$1
	for b in "$d/usr/bin/busybox" "$d/bin/busybox"; do
		[ -x "$b" ] && { echo "$b"; return; }
	done
	rm -rf "$d" && mkdir -p "$d/deb" || return 1
	(cd "$d/deb" && vapt "$1" apt-get download busybox-static) >>"$VM/apt.log" 2>&1 || return 1
	dpkg-deb -x "$d"/deb/*.deb "$d" || return 1
	rm -rf "$d/deb"
	for b in "$d/usr/bin/busybox" "$d/bin/busybox"; do
		[ -x "$b" ] && { echo "$b"; return; }
	done
	return 1
}
