#!/usr/bin/env bash
# The house as docs/architecture.md draws it: each libsp folder has its
# section there ("### `libsp/F/`: ..."), which names every source and
# private header of the folder; the installed headers mirror the folders
# (sp/F/X.h is libsp/F/'s API; sp/stackpulse.h includes them all); the
# folders' includes point one way (no cycle between folders) and are the
# arrows of its picture; and inside a folder the files' calls point one
# way too (a file that calls back into its caller needs a leaf
# underneath).  ninja analyze runs this script too.
. "$(dirname "$0")/../lib.bash"
doc=docs/architecture.md

# section F: the text of folder F's section, up to the next heading.
section() {
	awk -v h="### \`libsp/$1/\`" 'index($0, h) == 1 { on = 1; next }
	    /^#/ { on = 0 } on' "$doc"
}
folders=$(find libsp -mindepth 1 -maxdepth 1 -type d ! -name include -printf '%f\n' | sort)
bad=
for f in $folders; do
	grep -q "^### \`libsp/$f/\`" "$doc" || bad="$bad $f"
done
check "every libsp folder has its section in $doc${bad:+ (missing:$bad)}" test -z "$bad"

bad=
for f in $folders; do
	text=$(section "$f")
	for p in $(find "libsp/$f" \( -name '*.c' -o -name '*_int.h' \) | sort); do
		grep -qF "\`${p##*/}\`" <<<"$text" || bad="$bad $p"
	done
done
check "every source and private header is named in its folder's section${bad:+ (not:$bad)}" test -z "$bad"

# owner sp/F/X.h: F.
owner() { case $1 in sp/*/*.h) f=${1#sp/}; echo "${f%%/*}" ;; esac; }
bad=
for h in $(find libsp/include -name '*.h' | sort); do
	i=${h#libsp/include/}
	[ "$i" = sp/stackpulse.h ] && continue
	f=$(owner "$i")
	[ -n "$f" ] && [ -d "libsp/$f" ] || bad="$bad $i"
done
check "every installed header is in the folder of its module, sp/F/ for libsp/F/${bad:+ (not:$bad)}" test -z "$bad"

# The folder graph: an edge A B for each include in folder A of a private
# header of B, or of a public header of B (public headers count for the
# folder that owns them, with their own includes).
edges=$TMP/edges
: >"$edges"
for p in $(find libsp -name '*.[ch]' ! -path libsp/include/sp/stackpulse.h | sort); do
	if [[ $p == libsp/include/sp/* ]]; then
		a=$(owner "${p#libsp/include/}")
	else
		a=${p#libsp/}; a=${a%%/*}
	fi
	[ -n "$a" ] || continue
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$p" | while read -r i; do
		case $i in
		sp/*) b=$(owner "$i") ;;
		*/*_int.h) b=${i%%/*} ;;
		*) b=$a ;;
		esac
		[ -n "$b" ] && [ "$a" != "$b" ] && echo "$a $b $p $i"
	done >>"$edges"
done
sort -u -k1,2 "$edges" | awk '{print $1, $2}' >"$TMP/graph"
echo "folder graph (A uses B):"
sed 's/^/    /' "$TMP/graph"
loop=$(tsort "$TMP/graph" 2>&1 >/dev/null)
check "the folders' includes point one way (no cycle)${loop:+: $loop}" test -z "$loop"

# The picture of $doc draws that graph: a line "A, B ──► C, D (why)" is
# an arrow from each left folder to each right one, the parentheses
# aside (one left open runs to the end of the line).  Every arrow is an include, and every include an arrow.
grep -E '^ *[a-z]+(, [a-z]+)* +──► ' "$doc" | sed -e 's/([^)]*)//g' -e 's/(.*//' |
while read -r line; do
	line=${line//,/ }
	for a in ${line%%──►*}; do
		for b in ${line#*──►}; do echo "$a $b"; done
	done
done | LC_ALL=C sort -u >"$TMP/drawn"
LC_ALL=C sort -u "$TMP/graph" >"$TMP/included"
bad=$({ LC_ALL=C comm -23 "$TMP/drawn" "$TMP/included" | sed 's/.*/drawn, not included: &;/'
    LC_ALL=C comm -13 "$TMP/drawn" "$TMP/included" | sed 's/.*/included, not drawn: &;/'
    } | tr '\n' ' ')
check "$doc's picture draws the folders' includes${bad:+ (${bad% })}" \
    test -n "$(cat "$TMP/drawn")" -a -z "$bad"
if [ -n "$loop" ]; then
	# Name the includes that close each loop: edges both ways.
	while read -r a b; do
		grep -q "^$b $a$" "$TMP/graph" && grep "^$a $b " "$edges" | head -3 | sed 's/^/    /'
	done <"$TMP/graph"
fi

# Inside each folder, file A uses file B when A calls a function B
# defines (at the start of a line, after a line that is not 'static').
: >"$TMP/calls"
for f in $folders; do
	awk 'FNR == 1 { prev = "" }
	    /^[a-z_][a-z0-9_]*\(/ && prev !~ /static/ {
		sub(/\(.*/, ""); print $0, FILENAME }
	    { prev = $0 }' libsp/$f/*.c >"$TMP/defs"
	while read -r fn def; do
		for src in libsp/$f/*.c; do
			[ "$src" != "$def" ] && grep -qw "$fn" "$src" &&
			    echo "${src#libsp/} ${def#libsp/}"
		done
	done <"$TMP/defs"
done | sort -u >"$TMP/calls"
loop=$(tsort "$TMP/calls" 2>&1 >/dev/null)
check "inside each folder the files' calls point one way (no cycle)${loop:+: $loop}" \
    test -z "$loop"
done_testing
