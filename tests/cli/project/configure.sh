#!/usr/bin/env bash
# configure.sh's fetching, as a fresh machine does it: the five pinned files
# come through the machine's own apt sources (a suite that answers 404 for a
# file only moves on to the next version that names it), and a fetch that
# cannot succeed ends in one short error naming each file, its sha256 and the
# --deps-src recipe.  Needs the network to Debian's archive; without it the
# first part says SKIP.
. "$(dirname "$0")/../lib.bash"
src=$TMP/src
rm -rf "$src"

pins=$(sed -n 's/^\([0-9a-f]\{64\}\)  \$\([A-Z_]*\)"\{0,1\}$/\1 \2/p' configure.sh)
check "configure.sh pins five files" test "$(wc -l <<<"$pins")" -eq 5

run ./configure.sh --fetch-only "$src"
if [ "$RC" -ne 0 ] && has "apt-get update got no source index" "$ERR"; then
	skip "fetching the pinned files" "the Debian archive is not reachable from here"
else
	check "--fetch-only fetches the pinned files" test "$RC" -eq 0
	bad=0
	while read -r sum var; do
		file=$(sed -n "s/^$var=//p" configure.sh)
		[ -n "$file" ] && [ "$(sha256sum <"$src/$file" | cut -d' ' -f1)" = "$sum" ] ||
			{ bad=$((bad + 1)); echo "    $var ($file): missing or wrong sum"; }
	done <<<"$pins"
	check "each fetched file has its pinned sha256" test "$bad" -eq 0
	check "nothing but the five files is downloaded (no .dsc, no Debian diff)" \
	    test "$(find "$src" -type f | wc -l)" -eq 5
	check "configure says where each file came from" \
	    test "$(grep -c '^configure: fetched ' "$TMP/out")" -eq 5
fi

# No network at all (a new network namespace has only a down loopback): the
# error names every file, its sum and the recipe, and is short.
if unshare -n true 2>/dev/null; then
	rm -rf "$TMP/nonet"
	run unshare -n ./configure.sh --fetch-only "$TMP/nonet"
	check "without network: exit 1" test "$RC" -eq 1
	check "without network: names the zlib tarball and its sha256" \
	    grep -qE 'could not fetch zlib_1\.2\.13\.dfsg\.orig\.tar\.bz2 \(sha256 [0-9a-f]{64}\)' "$TMP/err"
	check "without network: every pinned file is named" \
	    test "$(grep -c 'could not fetch' "$TMP/err")" -eq 5
	check "without network: gives the --deps-src recipe" \
	    has "./configure.sh --deps-src DIR" "$ERR"
	check "without network: the recipe lists the five files with sums" \
	    test "$(grep -cE '^configure:   [^ ]+  sha256 [0-9a-f]{64}$' "$TMP/err")" -eq 5
	check "without network: no apt output on the terminal" \
	    test "$(grep -c '^E: \|^Err:\|^W: ' "$TMP/err")" -eq 0
	check "without network: under 20 lines" test "$(wc -l <"$TMP/err")" -lt 20
	check "without network: says the source index is missing" has "got no source index" "$ERR"
else
	skip "configure without network" "unshare -n is not permitted here"
fi
done_testing
