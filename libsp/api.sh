#!/usr/bin/env bash
# libsp's API as installed: the headers `ninja install` copies and the
# functions they declare.  build.ninja's install rule, its version script
# for libstackpulse.so and tests/exports.sh all ask this one script.
#   libsp/api.sh headers "NOT_INSTALLED"          the installed headers
#   libsp/api.sh names "NOT_INSTALLED" CC [CFLAGS...]  their sp_ functions
# NOT_INSTALLED is build.ninja's $tool_headers (the tools' helpers, which
# print and exit).  The names come from the compiler (gcc -aux-info over
# one file that includes every installed header), not from a grep of the
# text, so that a name in a comment or a macro does not count.  Run from
# the top of the checkout.
set -eu
mode=$1 noinst=$2
shift 2
headers() {
	local h
	for h in libsp/include/sp/*.h libsp/include/sp/*/*.h; do
		case " $noinst " in *" $h "*) ;; *) echo "$h" ;; esac
	done
}
case $mode in
headers) headers ;;
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
*) echo "usage: libsp/api.sh headers|names NOT_INSTALLED [CC [CFLAGS...]]" >&2; exit 2 ;;
esac
