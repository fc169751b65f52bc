#!/bin/sh
# Makes the seed corpora of fuzz_dwline and fuzz_dwinfo (see README.md):
# tests/workloads/inl.c compiled with each DWARF flavour the readers
# handle, its sections taken out with objcopy --dump-section.
#   usage: sh fuzz/dwarf-seeds.sh   (from the source top)
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# le VALUE BYTES: VALUE as BYTES little-endian bytes.
le() {
	v=$1
	n=$2
	while [ "$n" -gt 0 ]; do
		printf "\\$(printf %o $((v & 255)))"
		v=$((v >> 8))
		n=$((n - 1))
	done
}

# addr BIN SYMBOL
addr() {
	echo $((0x$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')))
}

# sect BIN NAME: the section's bytes in $tmp/NAME (empty when absent).
sect() {
	: >"$tmp/$2"
	objcopy --dump-section "$2=$tmp/$2" "$1" "$tmp/junk" 2>/dev/null || :
}

seed() {	# NAME COMPILER FLAGS...
	name=$1
	cc=$2
	shift 2
	$cc -O2 "$@" -o "$tmp/bin" tests/workloads/inl.c
	first=$(addr "$tmp/bin" first)
	sect "$tmp/bin" .debug_line
	{ le "$first" 8; cat "$tmp/.debug_line"; } >"fuzz/corpus/dwline/$name"
	{
		le "$first" 8
		le $((first + 32)) 8
		le "$(addr "$tmp/bin" main)" 8
		le $(($(addr "$tmp/bin" second) + 16)) 8
		for s in info abbrev line str line_str str_offsets addr \
		    ranges rnglists aranges; do
			sect "$tmp/bin" ".debug_$s"
			le "$(wc -c <"$tmp/.debug_$s")" 2
			cp "$tmp/.debug_$s" "$tmp/keep_$s"
		done
		for s in info abbrev line str line_str str_offsets addr \
		    ranges rnglists aranges; do
			cat "$tmp/keep_$s"
		done
	} >"fuzz/corpus/dwinfo/$name"
}

mkdir -p fuzz/corpus/dwline fuzz/corpus/dwinfo
seed gcc-dwarf5 gcc -g
seed gcc-dwarf4 gcc -gdwarf-4
seed gcc-dwarf3 gcc -gdwarf-3
seed gcc-dwarf2 gcc -gdwarf-2
seed gcc-dwarf64 gcc -g -gdwarf64 -gno-as-loc-support
seed clang-dwarf5 clang -g
seed clang-dwarf4 clang -gdwarf-4
