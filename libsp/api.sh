#!/usr/bin/env bash
# libsp's API as installed: the headers `ninja install` copies and the
# functions they declare.  build.ninja's install rule, its version script
# for libstackpulse.so and tests/exports.sh all ask this one script.
#   libsp/api.sh headers "NOT_INSTALLED"          the installed headers
#   libsp/api.sh names "NOT_INSTALLED" CC [CFLAGS...]  their sp_ functions
#   libsp/api.sh map "NOT_INSTALLED" CC [CFLAGS...]    libstackpulse.so's
#                             version script: those functions, nothing else
#   libsp/api.sh version      the project's version, "0.5.0"
#   libsp/api.sh soname       libstackpulse.so's: .so.MAJOR, and while
#                             MAJOR is 0 .so.0.MINOR (sp/tool/version.h:
#                             until 1.0 a minor release may change the API)
# NOT_INSTALLED is build.ninja's $tool_headers (the tools' helpers, which
# print and exit).  The names come from the compiler (gcc -aux-info over
# one file that includes every installed header), not from a grep of the
# text, so that a name in a comment or a macro does not count.  Run from
# the top of the checkout.
set -euo pipefail
mode=$1 noinst=${2-}
shift $(($# < 2 ? $# : 2))
# version: MAJOR MINOR PATCH, from the header that the library reports.
version() {
	sed -n 's/^#define SP_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
	    libsp/include/sp/tool/version.h | xargs
}
headers() {
	local h
	for h in libsp/include/sp/*.h libsp/include/sp/*/*.h; do
		case " $noinst " in *" $h "*) ;; *) echo "$h" ;; esac
	done
}
case $mode in
headers) headers ;;
version) version | tr ' ' . ;;
soname)
	set -- $(version)
	[ $# -eq 3 ] || { echo "api.sh: no version in sp/tool/version.h" >&2; exit 1; }
	if [ "$1" = 0 ]; then echo "libstackpulse.so.0.$2"; else echo "libstackpulse.so.$1"; fi ;;
map)
	# Anonymous: the names carry no symbol version (the SONAME does).
	echo '{'
	echo '  global:'
	"$0" names "$noinst" "$@" | sed 's/.*/    &;/'
	echo '  local: *;'
	echo '};' ;;
names)
	cc=$1
	shift
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	headers | sed 's|^libsp/include/\(.*\)|#include "\1"|' >"$tmp/all.c"
	"$cc" -std=c11 -D_GNU_SOURCE -Ilibsp/include "$@" -aux-info "$tmp/aux" \
	    -fsyntax-only "$tmp/all.c" ||
	    { echo "api.sh: the installed headers do not compile together" >&2; exit 1; }
	grep -F '/* libsp/include/sp/' "$tmp/aux" |
	    grep -oE '\bsp_[a-z0-9_]+ \(' | sed 's/ ($//' | LC_ALL=C sort -u ;;
*) echo "usage: libsp/api.sh headers|names|map NOT_INSTALLED [CC [CFLAGS...]] | version | soname" >&2; exit 2 ;;
esac
