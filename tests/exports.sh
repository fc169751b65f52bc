#!/usr/bin/env bash
# The API's edge is the installed headers (libbpf's libbpf.map in spirit):
# every global symbol libsp.a defines is either declared by a header that
# `ninja install` installs (sp_*), or private to the library (spi_*).  The
# declarations are libsp/api.sh's (the compiler's, not a grep).  Usage:
#   tests/exports.sh LIBSP_A "NOT_INSTALLED_HEADERS" CC [CFLAGS...]
# (build.ninja's $tool_headers: every libsp/include/sp/*.h but these is
# installed.)
# Also: every sp_/SP_ name docs/api.md gives is in an installed header.
# Prints each offender and exits 1 if there is one.
set -u
lib=$1 noinst=$2 cc=$3
shift 3
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libsp/api.sh headers "$noinst" | sed 's|^libsp/include/\(.*\)|#include "\1"|' >"$tmp/all.c"
# The umbrella header includes every other installed one.
bad=0
want=$(grep -v '"sp/stackpulse.h"' "$tmp/all.c" | LC_ALL=C sort)
got=$(grep '^#include "sp/' libsp/include/sp/stackpulse.h | LC_ALL=C sort)
if [ "$want" != "$got" ]; then
	echo "sp/stackpulse.h does not include exactly the installed headers:"
	diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/    &/p'
	bad=1
fi
libsp/api.sh names "$noinst" "$cc" "$@" >"$tmp/declared" || exit 1
# docs/api.md names the API to integrators: each sp_ or SP_ name it gives
# (a function, type, field-bearing struct, enum constant or macro) is in
# an installed header, so that a rename or a typo there is caught.
libsp/api.sh headers "$noinst" | xargs cat >"$tmp/headers"
for w in $(grep -oE '\b(sp|SP)_[A-Za-z0-9_]*[A-Za-z0-9]\b' docs/api.md | sort -u); do
	grep -qw -- "$w" "$tmp/headers" ||
	    { echo "docs/api.md names $w, which no installed header has"; bad=1; }
done
nm -g --defined-only "$lib" | awk 'NF == 3 && $2 ~ /[A-Z]/ { print $3 }' |
    sort -u >"$tmp/exported"
while read -r s; do
	case $s in
	spi_*) ;;
	sp_*)	grep -qxF "$s" "$tmp/declared" ||
		    { echo "exported but in no installed header: $s (make it spi_, or declare it)"; bad=1; } ;;
	*)	echo "exported without sp_ or spi_: $s"; bad=1 ;;
	esac
done <"$tmp/exported"
exit $bad
