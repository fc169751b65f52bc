# What tests/vm/run.sh fetches through apt: qemu (installed), busybox-static
# and Debian's cloud kernels (downloaded into build/vm/, never installed).
# The other suites' indexes live in a private apt directory whose sources
# are the machine's own Debian archive and security URIs with the suites
# swapped; apt checks them against Debian's keyring as usual.

VM_APT=$PWD/$VM/apt	# absolute: apt-get download runs elsewhere

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

# vapt PROGRAM ARGS...: apt-get or apt-cache on the private directory.
vapt() {
	local p=$1
	shift
	"$p" -q -o Dir::Etc::sourcelist="$VM_APT/sources.list" \
	    -o Dir::Etc::sourceparts="$VM_APT/parts" -o Dir::State::Lists="$VM_APT/lists" \
	    -o Dir::Cache="$VM_APT/cache" -o Dir::State::status="$VM_APT/status" \
	    -o APT::Architecture=amd64 -o APT::Architectures=amd64 \
	    -o APT::Sandbox::User=root "$@"
}

# apt_setup SUITE...: the private directory's sources (each SUITE from
# the machine's Debian archive, SUITE-security from its security
# archive) and indexes.  Says why and fails where it cannot.
apt_setup() {
	local code arch sec key s
	code=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	arch=$(apt_sources | awk -v c="$code" '$2 == c { print $1; exit }')
	sec=$(apt_sources | awk -v c="$code-security" '$2 == c { print $1; exit }')
	if [ -z "$code" ] || [ -z "$arch" ]; then
		echo "the machine's apt sources have no Debian archive for its release (${code:-unknown})"
		return 1
	fi
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$key" ] && key="[signed-by=$key] " || key=
	mkdir -p "$VM_APT/lists/partial" "$VM_APT/cache/archives/partial" "$VM_APT/parts"
	touch "$VM_APT/status"
	for s in "$@"; do
		echo "deb $key$arch $s main"
		[ -z "$sec" ] || echo "deb $key$sec $s-security main"
	done >"$VM_APT/sources.list"
	vapt apt-get update >"$VM/apt.log" 2>&1 ||
	    { echo "apt-get update of the private sources failed (build/vm/apt.log)"; return 1; }
}

# fetch_kernel SERIES: "IMAGE VERSION": the image package of the newest
# linux-image-cloud-amd64 of SERIES (5.10, 6.1, 6.12) the indexes know,
# its vmlinuz extracted to $VM/kernels/IMAGE/vmlinuz (kept between runs).
fetch_kernel() {
	local v img d=$VM/kernels
	v=$(vapt apt-cache madison linux-image-cloud-amd64 |
	    awk -F' *[|] *' -v s="$1." 'index($2, s) == 1 { print $2 }' |
	    sort -V | tail -1)
	[ -n "$v" ] || return 1
	img=$(vapt apt-cache depends "linux-image-cloud-amd64=$v" |
	    awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
	[ -n "$img" ] || return 1
	if [ ! -s "$d/$img/vmlinuz" ]; then
		rm -rf "$d/$img" && mkdir -p "$d/$img/deb" || return 1
		(cd "$d/$img/deb" && vapt apt-get download "$img") >>"$VM/apt.log" 2>&1 || return 1
		dpkg-deb --fsys-tarfile "$d/$img"/deb/*.deb |
		    tar -xO --wildcards './boot/vmlinuz-*' >"$d/$img/vmlinuz.part" &&
		    mv "$d/$img/vmlinuz.part" "$d/$img/vmlinuz" || return 1
		rm -rf "$d/$img/deb"
	fi
	echo "$img $(vapt apt-cache show "$img" | awk '$1 == "Version:" { print $2; exit }')"
}

# fetch_busybox: the path of a static busybox (busybox-static, the newest
# the private indexes know), extracted under $VM/busybox.
fetch_busybox() {
	local d=$VM/busybox
	if [ ! -x "$d/usr/bin/busybox" ]; then
		rm -rf "$d" && mkdir -p "$d/deb" || return 1
		(cd "$d/deb" && vapt apt-get download busybox-static) >>"$VM/apt.log" 2>&1 || return 1
		dpkg-deb -x "$d"/deb/*.deb "$d" || return 1
		rm -rf "$d/deb"
	fi
	echo "$d/usr/bin/busybox"
}
