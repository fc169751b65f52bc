#!/bin/bash
# configure.sh: check the toolchain, fetch and build stackpulse's static
# dependencies, and write build/config.ninja + build/config.sh for build.ninja.
#
# Why we build dependencies ourselves: stackpulse ships a fully static musl
# binary. Debian ships libelf only as a glibc static archive (libelf-dev) and
# Zydis only as a shared library (libzydis-dev); neither links into a musl
# program. So we take Debian's pristine upstream tarballs (elfutils, zydis,
# zlib; Debian patches are NOT applied) plus libzycore-dev's headers, verify
# pinned sha256 sums, and build small static archives twice: with musl-gcc
# (the shipped binary) and with gcc (tests, sanitizers, fuzzing).
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: ./configure.sh [--prefix DIR] [--deps-src DIR] [--fetch-only DIR] [--help]
  --prefix DIR     install prefix for build/config.ninja (default /usr/local)
  --deps-src DIR   directory already holding the four pinned files (elfutils,
                   zydis, zlib orig tarballs + libzycore-dev .deb): no fetching
  --fetch-only DIR fetch and verify the four pinned files into DIR, then stop
                   (for a later --deps-src DIR on a host without network)
EOF
}

prefix=/usr/local deps_src= fetch_only=
while [ $# -gt 0 ]; do
    case $1 in
        --prefix|--deps-src|--fetch-only)
            [ $# -ge 2 ] || { echo "configure: $1 needs a directory" >&2; exit 1; }
            case $1 in --prefix) prefix=$2 ;; --deps-src) deps_src=$2 ;; *) fetch_only=$2 ;; esac
            shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --deps-src=*) deps_src=${1#*=}; shift ;;
        --fetch-only=*) fetch_only=${1#*=}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "configure: unknown option: $1 (see ./configure.sh --help)" >&2; exit 1 ;;
    esac
done
if [ -n "$deps_src" ]; then
    [ -d "$deps_src" ] || { echo "configure: --deps-src: no such directory: $deps_src" >&2; exit 1; }
    deps_src=$(cd "$deps_src" && pwd)   # make it absolute before we cd
fi
if [ -n "$fetch_only" ]; then
    mkdir -p "$fetch_only" && fetch_only=$(cd "$fetch_only" && pwd) ||
        { echo "configure: --fetch-only: cannot create $fetch_only" >&2; exit 1; }
fi

cd "$(dirname "$0")"
top=$(pwd)
deps=build/deps                 # relative: these paths go into config.ninja
DEPS=$top/$deps                 # absolute: used by the build steps
LOG=$DEPS/log
JOBS=$(nproc 2>/dev/null || echo 2)
CFLAGS_DEPS="-O2 -fPIC"           # -fPIC: usable in static, static-pie and shared links
RECIPE=1                        # bump when the dependency build steps change

# Pinned inputs: what Debian 12 (bookworm) serves. If the archive ever serves
# another upstream version, the checksum check fails instead of drifting.
ELFUTILS_TAR=elfutils_0.188.orig.tar.bz2
ZYDIS_TAR=zydis_4.0.0.orig.tar.gz
ZLIB_TAR=zlib_1.2.13.dfsg.orig.tar.bz2
ZYCORE_DEB=libzycore-dev_1.4.1-1_amd64.deb
PINNED="\
fb8b0e8d0802005b9a309c60c1d8de32dd2951b56f0c3a3cb56d21ce01595dff  $ELFUTILS_TAR
e990107f80c62afc1deb51de230023a1098db801b8ea6bf483e296d45459e234  $ZYDIS_TAR
71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1  $ZLIB_TAR
20daa9552e632c9a08443690c6933c34f2f63a8d2eb60125688823a20f7322c3  $ZYCORE_DEB"
declare -A SUM
while read -r _sum _file; do SUM[$_file]=$_sum; done <<<"$PINNED"

say() { echo "configure: $*"; }
die() { echo "configure: error: $*" >&2; exit 1; }
fail() {   # fail LOGFILE MESSAGE: show the end of a step's log and stop
    echo "configure: error: $2" >&2
    tail -n 25 "$1" >&2 || true
    echo "configure: full log: ${1#"$top"/}" >&2
    exit 1
}
run() {    # run LOGNAME CMD...: noisy output goes to build/deps/log/LOGNAME.log
    local log=$LOG/$1.log; shift
    "$@" >>"$log" 2>&1 || fail "$log" "step '${log##*/}' failed: $*"
}
compile() {   # compile LOGNAME OBJDIR CC ARGS...: compile the sources named on stdin
    local log=$LOG/$1.log dir=$2; shift 2
    (cd "$dir" && xargs -P "$JOBS" -n 8 "$@" -c) >>"$log" 2>&1 || fail "$log" "compiling failed (${log##*/})"
}

# ---------------------------------------------------------------- tools
# Entries are check:package; a check is a command name or a special @check.
TOOLS="musl-gcc:musl-tools ninja:ninja-build gcc:gcc clang:clang cppcheck:cppcheck
clang-tidy:clang-tidy pkg-config:pkg-config dpkg-source:dpkg-dev file:file
tar:tar bzip2:bzip2 xz:xz-utils sha256sum:coreutils make:make ar:binutils
@criterion:libcriterion-dev @fuzzer:libclang-rt-dev @kheaders:linux-libc-dev"

# The libFuzzer/ASan runtimes come from libclang-rt-N-dev for clang N (14 on
# Debian 12); the only reliable test is linking a trivial fuzz target.
fuzzer_ok() {
    local d rc=0; d=$(mktemp -d)
    echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$d/f.c"
    clang -fsanitize=fuzzer,address "$d/f.c" -o "$d/f" >/dev/null 2>&1 || rc=1
    rm -rf "$d"; return $rc
}
missing_pkgs() {
    local t pkg v
    for t in $TOOLS; do
        pkg=${t#*:}
        case ${t%%:*} in
            @criterion) command -v pkg-config >/dev/null && pkg-config --exists criterion && continue ;;
            @kheaders) [ -f /usr/include/linux/perf_event.h ] && continue ;;
            @fuzzer) command -v clang >/dev/null && fuzzer_ok && continue
                v=$(clang -dumpversion 2>/dev/null | cut -d. -f1) || true
                [ -z "$v" ] || pkg=libclang-rt-$v-dev ;;
            *) command -v "${t%%:*}" >/dev/null && continue ;;
        esac
        echo "$pkg"
    done
}

mkdir -p "$LOG"
say "checking tools"
missing=$(missing_pkgs | sort -u | xargs)
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        say "installing missing packages: $missing"
        run apt-install apt-get update
        # shellcheck disable=SC2086  # word splitting of the package list is intended
        run apt-install env DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
        missing=$(missing_pkgs | sort -u | xargs)
        [ -z "$missing" ] || die "still missing after apt-get install: $missing"
    else
        die "missing tools; as root run: apt-get install $missing"
    fi
fi

# ---------------------------------------------------------------- reuse
stamp_text() {
    printf 'recipe %s\ncflags %s\n%s\n' "$RECIPE" "$CFLAGS_DEPS" "$PINNED"
    printf 'musl-gcc: %s\ngcc: %s\n' "$(musl-gcc --version | head -n 1)" "$(gcc --version | head -n 1)"
}
deps_current() {
    local a
    [ -f "$DEPS/.stamp" ] && [ "$(cat "$DEPS/.stamp")" = "$(stamp_text)" ] || return 1
    for a in "$DEPS"/{musl,glibc}/lib/lib{elf,Zydis,z}.a; do [ -f "$a" ] || return 1; done
}

# ---------------------------------------------------------------- fetch
# Turn the machine's own apt sources into a private sources.list holding the
# same entries as both `deb` and `deb-src` (same URIs, suites, components,
# signed-by), so /etc/apt is never edited. Like apt, only *.list and
# *.sources files count (e.g. *.disabled-by-farm is ignored).
write_private_sources() {
    local apt=$1 f lists=() sources=()
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && lists+=("$f"); done
    for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && sources+=("$f"); done
    {
        # One-line format: `deb [options] uri suite [components]  # comment`.
        if [ ${#lists[@]} -gt 0 ]; then
            sed -n 's/[[:space:]]#.*//; s/^[[:space:]]*deb[[:space:]]\{1,\}/deb /p' "${lists[@]}" |
                while IFS= read -r line; do echo "$line"; echo "deb-src ${line#deb }"; done
        fi
        # deb822 format: blank-line separated stanzas of "Key: value" lines plus
        # indented continuation lines (an inline Signed-By key goes to a file).
        [ ${#sources[@]} -eq 0 ] || awk -v keydir="$apt" '
            function flush(   opts, u, s, nu, ns, i, j, kf) {
                if (types ~ /(^|[ \t])deb([ \t]|$)/ && tolower(enabled) != "no" && uris != "") {
                    if (signed == "" && key != "") {
                        kf = keydir "/inline-key-" (++nkeys) ".asc"
                        printf "%s", key > kf; close(kf); signed = kf
                    }
                    gsub(/[ \t,]+/, ",", signed)
                    opts = (signed != "") ? "signed-by=" signed : ""
                    if (tolower(trusted) == "yes") opts = opts (opts != "" ? " " : "") "trusted=yes"
                    if (opts != "") opts = " [" opts "]"
                    nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
                    for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) {
                        print "deb" opts " " u[i] " " s[j] " " comps
                        print "deb-src" opts " " u[i] " " s[j] " " comps
                    }
                }
                types = uris = suites = comps = signed = key = enabled = trusted = field = ""
            }
            FNR == 1 { flush() }
            /^#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]/ {
                if (field == "signed-by") { l = $0; sub(/^[ \t]+/, "", l); key = key (l == "." ? "" : l) "\n" }
                next
            }
            {
                field = tolower(substr($0, 1, index($0, ":") - 1))
                val = substr($0, index($0, ":") + 1); gsub(/^[ \t]+|[ \t]+$/, "", val)
                if (field == "types") types = val;  else if (field == "uris") uris = val
                else if (field == "suites") suites = val;  else if (field == "components") comps = val
                else if (field == "signed-by") signed = val;  else if (field == "enabled") enabled = val
                else if (field == "trusted") trusted = val
            }
            END { flush() }' "${sources[@]}"
    } >"$apt/sources.list"
    grep -q '^deb-src' "$apt/sources.list" || die "no 'deb' entries found in the system's apt sources"
}

# fetch_file KIND PKG FILE SUM: download FILE (an orig tarball of source
# package PKG, or the binary package PKG's .deb) by the first version apt
# knows, newest first, whose URI names FILE and that downloads with the pinned
# sha256.  A suite answering 404 (the security archive drops a file another
# suite still serves) only moves on to the next version.  Only FILE itself is
# downloaded: no .dsc, no Debian diff.
fetch_file() {
    local kind=$1 pkg=$2 file=$3 sum=$4 v uri tried=
    local versions
    if [ "$kind" = src ]; then
        versions=$(apt-cache "${APT_O[@]}" showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p')
    else
        versions=$(apt-cache "${APT_O[@]}" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p')
    fi
    for v in $(printf '%s\n' $versions | sort -u | sort -rV); do
        if [ "$kind" = src ]; then
            uri=$(apt-get "${APT_O[@]}" source --print-uris "$pkg=$v" 2>>"$LOG/fetch.log")
        else
            uri=$(apt-get "${APT_O[@]}" download --print-uris "$pkg=$v" 2>>"$LOG/fetch.log")
        fi
        uri=$(printf '%s\n' "$uri" | awk -v f="$file" '$2 == f { gsub(/\047/, "", $1); print $1; exit }')
        [ -n "$uri" ] || continue
        tried="$tried $v"
        echo "fetch $file from $pkg $v: $uri" >>"$LOG/fetch.log"
        rm -f "$SRC/$file"
        if /usr/lib/apt/apt-helper "${APT_O[@]}" download-file "$uri" "$SRC/$file" "SHA256:$sum" \
            >>"$LOG/fetch.log" 2>&1 && [ "$(sha256sum "$SRC/$file" | cut -d' ' -f1)" = "$sum" ]; then
            say "fetched $file ($pkg $v)"
            return 0
        fi
        rm -f "$SRC/$file"
    done
    echo "configure: error: could not fetch $file (sha256 $sum)" >&2
    if [ -n "$tried" ]; then
        echo "configure:   tried $pkg versions:$tried (details: ${LOG#"$top"/}/fetch.log)" >&2
    else
        echo "configure:   no version of $pkg known to apt names that file (details: ${LOG#"$top"/}/fetch.log)" >&2
    fi
    return 1
}

deps_src_recipe() {
    echo "configure: to build without fetching, put these four files in a directory DIR" >&2
    echo "configure: (any Debian mirror's pool/ serves them) and run ./configure.sh --deps-src DIR:" >&2
    while read -r sum file; do echo "configure:   $file  sha256 $sum" >&2; done <<<"$PINNED"
}

fetch_sources() {
    local apt=$DEPS/apt bad=0
    command -v apt-get >/dev/null || { deps_src_recipe; die "apt-get not available"; }
    rm -rf "$apt"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$SRC"
    write_private_sources "$apt"
    # Private source list, lists dir and caches: the system's apt state stays untouched.
    APT_O=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=/var/lib/dpkg/status"
           -o "Dir::Cache=$apt/cache" -o "Dir::Cache::Archives=$apt/cache/archives"
           -o APT::Sandbox::User=root)
    say "fetching elfutils, zydis, zlib sources and libzycore-dev"
    apt-get "${APT_O[@]}" update >>"$LOG/fetch.log" 2>&1 || true
    # apt-get update exits 0 when every source failed: look at what it got.
    ls "$apt/lists/"*Sources* >/dev/null 2>&1 ||
        echo "configure: warning: apt-get update got no source index from the machine's apt sources (no network, or no mirror answering?)" >&2
    fetch_file src elfutils "$ELFUTILS_TAR" "${SUM[$ELFUTILS_TAR]}" || bad=1
    fetch_file src zydis "$ZYDIS_TAR" "${SUM[$ZYDIS_TAR]}" || bad=1
    fetch_file src zlib "$ZLIB_TAR" "${SUM[$ZLIB_TAR]}" || bad=1
    fetch_file deb libzycore-dev "$ZYCORE_DEB" "${SUM[$ZYCORE_DEB]}" || bad=1
    rm -rf "$apt/lists" "$apt/cache"   # ~40 MB of indexes, only needed for fetching
    [ "$bad" = 0 ] || { deps_src_recipe; exit 1; }
}

verify_sums() {   # verify_sums DIR
    local sum file actual
    while read -r sum file; do
        [ -f "$1/$file" ] || die "missing $file in $1"
        actual=$(sha256sum "$1/$file" | cut -d' ' -f1)
        [ "$actual" = "$sum" ] || die "sha256 mismatch for $1/$file: expected $sum, actual $actual"
    done <<<"$PINNED"
}

# ---------------------------------------------------------------- build
# elfutils' config.h normally comes from its ./configure; libelf reads only
# these answers. glibc and musl (>= 1.2.2) both declare mempcpy, memrchr,
# reallocarray, mremap and powerof2; rawmemchr is glibc-only (libelf has a
# fallback). musl has <err.h> but no <error.h>: system.h then just declares
# error(), which libelf never calls, so no shim is needed. USE_LOCKS (elfutils'
# experimental thread safety) stays off, as in a default elfutils build.
write_elfutils_config() {
    cat >"$1/config.h" <<'EOF'
/* generated by stackpulse configure.sh for building libelf only */
#define HAVE_VISIBILITY 1
#define HAVE_GCC_STRUCT 1
#define HAVE_FALLTHROUGH 1
#define HAVE_STDATOMIC_H 1
#define HAVE_MREMAP 1
#define HAVE_DECL_MEMPCPY 1
#define HAVE_DECL_MEMRCHR 1
#define HAVE_DECL_POWEROF2 1
#define HAVE_DECL_REALLOCARRAY 1
#define HAVE_DECL_RAWMEMCHR 0
#if __has_include(<error.h>)
# define HAVE_ERROR_H 1
#else
# define HAVE_ERR_H 1
#endif
#define _FILE_OFFSET_BITS 64
#include <eu-config.h>
EOF
}

# build_flavor NAME CC: zlib, libelf, Zydis into build/deps/NAME/{include,lib}.
build_flavor() {
    local name=$1 cc=$2 out=$DEPS/$1 obj=$DEPS/obj/$1 x=$DEPS/x flags
    read -ra flags <<<"$CFLAGS_DEPS"
    rm -rf "$out" "$obj"
    mkdir -p "$out/include" "$out/lib" "$obj/zlib" "$obj/elf" "$obj/zydis"

    # zlib: its own configure is quick and handles musl-gcc fine. It builds
    # in-tree, hence one unpacked copy per flavor.
    say "building zlib ($name)"
    run "zlib-$name" tar -xjf "$SRC/$ZLIB_TAR" -C "$obj/zlib" --strip-components=1
    (cd "$obj/zlib" && CC=$cc CFLAGS=$CFLAGS_DEPS ./configure --static --prefix="$out" &&
        make -j"$JOBS" libz.a) >>"$LOG/zlib-$name.log" 2>&1 || fail "$LOG/zlib-$name.log" "building zlib ($name) failed"
    cp "$obj/zlib/zlib.h" "$obj/zlib/zconf.h" "$out/include/" && cp "$obj/zlib/libz.a" "$out/lib/"

    # libelf: exactly libelf_a_SOURCES from elfutils' libelf/Makefile.am (116
    # files). -I$out/include supplies this flavor's zlib.h (compressed
    # sections); never -I/usr/include, which would mix glibc headers into musl.
    # -Ilibelf also makes libelf use elfutils' own, newer elf.h.
    say "building libelf ($name)"
    local e=$x/elfutils srcs
    srcs=$(sed -n '/^libelf_a_SOURCES/,/[^\\]$/p' "$e/libelf/Makefile.am" |
        sed 's/^libelf_a_SOURCES[[:space:]]*=//; s/\\//g' | tr -s ' \t' '\n' | sed '/^$/d')
    [ "$(echo "$srcs" | wc -l)" -gt 50 ] || die "could not read libelf_a_SOURCES from elfutils"
    echo "$srcs" | sed "s|^|$e/libelf/|" | compile "libelf-$name" "$obj/elf" "$cc" "${flags[@]}" \
        -std=gnu99 -D_GNU_SOURCE -DHAVE_CONFIG_H -I"$x/gen" -I"$e/libelf" -I"$e/lib" -I"$out/include"
    run "libelf-$name" ar rcs "$out/lib/libelf.a" "$obj"/elf/*.o
    cp "$e/libelf/libelf.h" "$e/libelf/gelf.h" "$e/libelf/nlist.h" "$out/include/"

    # Zydis 4 needs no generated Zydis/ZycoreExportConfig.h: the *_STATIC_BUILD
    # defines select static linkage, and it uses only Zycore's headers (no
    # Zycore code), taken from the libzycore-dev .deb. C11 as upstream's CMake.
    say "building Zydis ($name)"
    printf '%s\n' "$x/zydis/src/"*.c | compile "zydis-$name" "$obj/zydis" "$cc" "${flags[@]}" \
        -std=gnu11 -DZYDIS_STATIC_BUILD -DZYCORE_STATIC_BUILD \
        -I"$x/zydis/include" -I"$x/zydis/src" -I"$x/zycore/usr/include"
    run "zydis-$name" ar rcs "$out/lib/libZydis.a" "$obj"/zydis/*.o
    cp -R "$x/zydis/include/Zydis" "$x/zycore/usr/include/Zycore" "$out/include/"

    say "testing static link ($name)"
    run "test-$name" "$cc" -static -O2 -Wall -Werror -I"$out/include" -DZYDIS_STATIC_BUILD \
        -DZYCORE_STATIC_BUILD "$x/gen/deps_test.c" "$out"/lib/lib{elf,Zydis,z}.a -o "$obj/deps_test"
    run "test-$name" "$obj/deps_test"
}

build_deps() {
    local x=$DEPS/x
    rm -rf "$DEPS/.stamp" "$x" "$DEPS/obj"
    mkdir -p "$x/elfutils" "$x/zydis" "$x/zycore" "$x/gen"
    say "unpacking sources"
    run unpack tar -xjf "$SRC/$ELFUTILS_TAR" -C "$x/elfutils" --strip-components=1
    run unpack tar -xzf "$SRC/$ZYDIS_TAR" -C "$x/zydis" --strip-components=1
    run unpack dpkg-deb -x "$SRC/$ZYCORE_DEB" "$x/zycore"
    write_elfutils_config "$x/gen"
    # Smoke test: all three archives link statically and work.
    cat >"$x/gen/deps_test.c" <<'EOF'
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include <Zydis/Zydis.h>
int main(void) {
    ZydisDecoder d;
    if (elf_version(EV_CURRENT) == EV_NONE) return 1;
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) return 2;
    return strcmp(zlibVersion(), ZLIB_VERSION) != 0 || puts("deps ok") < 0;
}
EOF
    build_flavor musl musl-gcc
    build_flavor glibc gcc
    rm -rf "$x" "$DEPS/obj"      # keep only the installed copies
    stamp_text >"$DEPS/.stamp"
}

if [ -n "$fetch_only" ]; then
    SRC=$fetch_only; fetch_sources
    verify_sums "$SRC"
    say "the four pinned files are in $SRC; build with: ./configure.sh --deps-src $SRC"
    exit 0
fi
if deps_current; then
    say "dependencies up to date (build/deps/.stamp)"
else
    rm -f "$LOG"/{fetch,unpack,zlib-*,libelf-*,zydis-*,test-*}.log
    if [ -n "$deps_src" ]; then
        SRC=$deps_src; say "using dependency sources from $SRC"
    else
        SRC=$DEPS/src; fetch_sources
    fi
    say "verifying sha256 sums"
    verify_sums "$SRC"
    build_deps
fi

# musl's include path has no Linux UAPI headers (linux/perf_event.h, asm/
# perf_regs.h).  Give musl builds exactly those three directories from
# linux-libc-dev, never all of /usr/include, whose glibc headers would mix in.
kinc=$DEPS/musl/kinclude
mkdir -p "$kinc"
ln -sfn /usr/include/linux "$kinc/linux"
ln -sfn /usr/include/asm-generic "$kinc/asm-generic"
ln -sfn "/usr/include/$(gcc -print-multiarch)/asm" "$kinc/asm"

# ---------------------------------------------------------------- outputs
# Variable names are relied upon by the checked-in build.ninja.
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//'; }
dep_defs="-DZYDIS_STATIC_BUILD -DZYCORE_STATIC_BUILD"
vars=(
    prefix "$prefix"  musl_cc musl-gcc  cc gcc  clang clang
    musl_dep_cflags "-I$deps/musl/include -isystem $deps/musl/kinclude $dep_defs"
    musl_dep_libs "$deps/musl/lib/libelf.a $deps/musl/lib/libZydis.a $deps/musl/lib/libz.a"
    glibc_dep_cflags "-I$deps/glibc/include $dep_defs"
    glibc_dep_libs "$deps/glibc/lib/libelf.a $deps/glibc/lib/libZydis.a $deps/glibc/lib/libz.a"
    criterion_cflags "$(pkg-config --cflags criterion | trim)"
    criterion_libs "$(pkg-config --libs criterion | trim)"
)
header="# generated by configure.sh — do not edit"
tee build/config.sh.tmp <<<"$header" >build/config.ninja.tmp
for ((i = 0; i < ${#vars[@]}; i += 2)); do
    v=${vars[i+1]}
    printf '%s = %s\n' "${vars[i]}" "${v//\$/\$\$}" >>build/config.ninja.tmp   # '$' is ninja's escape
    printf "%s='%s'\n" "${vars[i]}" "${v//\'/\'\\\'\'}" >>build/config.sh.tmp
done
mv build/config.ninja.tmp build/config.ninja
mv build/config.sh.tmp build/config.sh
say "wrote build/config.ninja and build/config.sh"
say "done; now run: ninja test"
