#!/bin/bash
# configure.sh: check the toolchain, fetch and build stackpulse's static
# dependencies, and write build/config.ninja + build/config.sh for build.ninja.
#
# Why we build dependencies ourselves: stackpulse ships a fully static musl
# binary. Debian ships libelf only as a glibc static archive (libelf-dev) and
# Zydis only as a shared library (libzydis-dev); neither links into a musl
# program. So we take Debian's pristine upstream tarballs (elfutils, zydis,
# zlib, libiberty; Debian patches are NOT applied) plus libzycore-dev's
# headers, verify pinned sha256 sums, and build small static archives twice:
# with musl-gcc (the shipped binary) and with gcc (tests, sanitizers,
# fuzzing); libiberty's demanglers a third time with ASan+UBSan.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: ./configure.sh [--prefix DIR] [--deps-src DIR] [--fetch-only DIR] [--aarch64] [--help]
  --prefix DIR     install prefix for build/config.ninja (default /usr/local)
  --deps-src DIR   directory already holding the five pinned files (elfutils,
                   zydis, zlib, libiberty orig tarballs + libzycore-dev .deb):
                   no fetching
  --fetch-only DIR fetch and verify the five pinned files into DIR, then stop
                   (for a later --deps-src DIR on a host without network)
  --aarch64        also prepare the arm64 build now, as `ninja aarch64` does
                   when first asked: install the cross compiler, fetch
                   musl-dev for arm64, build zlib and libelf with them; with
                   --fetch-only or --deps-src, that .deb is a fifth file
  --aarch64-deps   only that preparation (what `ninja aarch64` runs)
  --regen          only write build/gen.ninja again from the folders (ninja
                   runs this itself when a folder gains or loses a file)
EOF
}

prefix=/usr/local deps_src= fetch_only= regen= aarch64=
while [ $# -gt 0 ]; do
    case $1 in
        --prefix|--deps-src|--fetch-only)
            [ $# -ge 2 ] || { echo "configure: $1 needs a directory" >&2; exit 1; }
            case $1 in --prefix) prefix=$2 ;; --deps-src) deps_src=$2 ;; *) fetch_only=$2 ;; esac
            shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --deps-src=*) deps_src=${1#*=}; shift ;;
        --fetch-only=*) fetch_only=${1#*=}; shift ;;
        --regen) regen=1; shift ;;
        --aarch64) aarch64=1; shift ;;
        --aarch64-deps) aarch64=only; shift ;;
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

# ---------------------------------------------------------------- file lists
# build/gen.ninja: what build.ninja builds, from the folders, so that a new
# source file, unit test, fuzz target or tool is built by its file alone.
# libsp/**/*.c go into libsp.a of every variant; tests/unit/*.c into the
# unit binaries; fuzz/fuzz_T.c become fuzz-T and regress-T; sp-*/main.c the
# tools.  build/gen-deps.ninja remakes both when one of those folders
# changes, or a unit test does (its includes decide its include path).
#
# Include paths: libsp's own sources see its folders (-Ilibsp); the
# tools, fuzz targets and test programs see the public headers only
# (-Ilibsp/include), as any user of the library does.  A unit test that
# includes a private header (a "_int.h": a white-box test of a cursor,
# codec or map) gets -Ilibsp as well, and so does such a fuzz target (the
# ring reader's); that include alone marks it, so a
# black-box test cannot reach the internals by accident.  (Naming the
# header from the top instead, as "libsp/common/cursor_int.h", would not
# do: private headers include each other by their path under libsp, as
# "common/buf_int.h".)
write_gen() {
    local out=build/gen.ninja v t f o i wb objs srcs asrcs vsrcs dirs
    mkdir -p build
    # A recorder unwinds on its own machine: of unwind/'s folders per
    # architecture only the compiler's is built (elf/'s, which read files
    # of any machine, all are); the arm64 build (ninja aarch64) takes
    # unwind/aarch64/ instead.  Without that folder, that build stops at
    # unwind/machine_int.h's #error, which says why.
    local arch common
    arch=$(gcc -dumpmachine | cut -d- -f1)
    [ -d "libsp/unwind/$arch" ] || { echo "configure: error: libsp/unwind/ has no folder for $arch (gcc -dumpmachine): the recorder unwinds on $(ls -d libsp/unwind/*/ | xargs -n1 basename | xargs) so far" >&2; exit 1; }
    common=$(find libsp -name '*.c' | grep -v '^libsp/unwind/[^/]*/' | LC_ALL=C sort)
    srcs=$(echo "$common"; find "libsp/unwind/$arch" -name '*.c' | LC_ALL=C sort)
    asrcs=$(echo "$common"
        [ ! -d libsp/unwind/aarch64 ] || find libsp/unwind/aarch64 -name '*.c' | LC_ALL=C sort)
    # ar keeps a member's base name only: two libsp/*/x.c would clash.
    f=$( { printf '%s\n' $srcs | sed 's|.*/||' | sort | uniq -d
        printf '%s\n' $asrcs | sed 's|.*/||' | sort | uniq -d; } | sort -u | xargs)
    [ -z "$f" ] || { echo "configure: error: libsp: two sources of one name in different folders: $f" >&2; exit 1; }
    {
        echo "# generated by configure.sh from the folders — do not edit"
        echo "libsp_incs = -Ilibsp/include -Ilibsp"
        echo "unit_incs = -Ilibsp/include -Itests \$criterion_cflags"
        echo "whitebox_incs = \$unit_incs -Ilibsp"
        # aarch64's objects wait for its dependencies, built when first
        # asked for; their headers are in the objects' depfiles after.
        local oo
        for v in musl glibc asan tsan fuzz analyze aarch64; do
            objs= vsrcs=$srcs oo=
            [ $v != aarch64 ] || vsrcs=$asrcs oo=' || build/deps/aarch64/.stamp'
            for f in $vsrcs; do
                o=build/$v/${f%.c}.o; objs="$objs $o"
                printf 'build %s: cc_%s %s%s\n  incs = $libsp_incs\n' "$o" "$v" "$f" "$oo"
            done
            if [ $v = analyze ]; then
                echo "build build/analyze/libsp: phony$objs"
            elif [ $v = aarch64 ]; then
                echo "build build/aarch64/libsp.a: ar_aarch64$objs"
            else
                echo "build build/$v/libsp.a: ar$objs"
            fi
        done
        local tools=() ; for f in sp-*/main.c; do tools+=("${f%/main.c}"); done
        echo "tools = ${tools[*]}"
        local bins= abins= amains= xbins=
        for t in "${tools[@]}"; do
            echo "build build/musl/$t/main.o: cc_musl $t/main.c"
            echo "build build/musl/$t/$t: link_musl build/musl/$t/main.o build/musl/libsp.a"
            echo "build build/bin/$t: strip build/musl/$t/$t"
            echo "build build/asan/$t/main.o: cc_asan $t/main.c"
            echo "build build/asan/$t/$t: link_asan build/asan/$t/main.o build/asan/libsp.a"
            echo "build build/analyze/$t/main.o: cc_analyze $t/main.c"
            echo "build build/aarch64/$t/main.o: cc_aarch64 $t/main.c || build/deps/aarch64/.stamp"
            echo "build build/aarch64/$t/$t: link_aarch64 build/aarch64/$t/main.o build/aarch64/libsp.a | build/deps/aarch64/.stamp"
            echo "build build/aarch64/bin/$t: strip_aarch64 build/aarch64/$t/$t"
            bins="$bins build/bin/$t"; abins="$abins build/asan/$t/$t"
            amains="$amains build/analyze/$t/main.o"; xbins="$xbins build/aarch64/bin/$t"
        done
        echo "build build/bin/tools: phony$bins"
        echo "build build/aarch64/bin/tools: phony$xbins"
        echo "build build/asan/tools: phony$abins"
        echo "build build/analyze/objects: phony build/analyze/libsp$amains"
        echo "analyze_src = $(echo $srcs) $(printf '%s/main.c ' "${tools[@]}")"
        # The checks read the headers too.
        echo "build build/analyze/sources: phony $(echo $srcs) $(printf '%s/main.c ' "${tools[@]}")" \
            "$(find libsp -name '*.h' | LC_ALL=C sort | xargs)"
        # The white-box tests (grep -l fails when there are none): those
        # that include a private header, themselves or through a header
        # of theirs.
        local wbh
        wbh=$(grep -l '^#include "[^"]*_int\.h"' tests/unit/*.h | sed 's|.*/||' | xargs || :)
        wb=" $( { grep -l '^#include "[^"]*_int\.h"' tests/unit/*.c
            for f in $wbh; do grep -l "^#include \"$f\"" tests/unit/*.c; done; } |
            LC_ALL=C sort -u | xargs || :) "
        for v in glibc asan; do
            objs=
            for f in tests/unit/*.c tests/refspool.c; do
                t=${f##*/}; o=build/$v/tests/${t%.c}.o; objs="$objs $o"
                i='$unit_incs'
                [[ $wb != *" $f "* ]] || i='$whitebox_incs'
                printf 'build %s: cc_%s %s\n  incs = %s\n' "$o" "$v" "$f" "$i"
            done
            printf 'build build/%s/unit: link_%s%s build/%s/libsp.a\n  libs = $criterion_libs\n' \
                "$v" "$v" "$objs" "$v"
        done
        printf 'build build/asan/fuzz/regress.o: cc_asan fuzz/regress.c\n'
        local regs= fuzzers=
        # White-box targets too (the ring reader has no public header).
        wb=" $(grep -l '^#include "[^"]*_int\.h"' fuzz/fuzz_*.c | xargs || :) "
        for f in fuzz/fuzz_*.c; do
            t=${f#fuzz/fuzz_}; t=${t%.c}
            i=
            [[ $wb != *" $f "* ]] || i='  incs = $libsp_incs'
            printf 'build build/asan/fuzz/%s.o: cc_asan %s\n%s\n' "$t" "$f" "$i"
            echo "build build/asan/regress-$t: link_asan build/asan/fuzz/$t.o build/asan/fuzz/regress.o build/asan/libsp.a"
            printf 'build build/fuzz/%s.o: cc_fuzz %s\n%s\n' "$t" "$f" "$i"
            echo "build build/fuzz/fuzz-$t: link_fuzz build/fuzz/$t.o build/fuzz/libsp.a"
            regs="$regs build/asan/regress-$t"; fuzzers="$fuzzers build/fuzz/fuzz-$t"
        done
        echo "build build/asan/regress: phony$regs"
        echo "build fuzz: phony$fuzzers"
    } >"$out.tmp"
    mv "$out.tmp" "$out"
    # Every folder that holds listed files: a file added or removed there
    # changes its time, which makes ninja run --regen and read again.
    # Each is named through build/top, a relative link to the checkout,
    # so that a moved or copied checkout watches its own folders: ninja
    # reads a plain folder name, however spelt (./fuzz, fuzz/, fuzz/.),
    # as the node of that name, and "fuzz" is also the phony target that
    # would build every fuzzer before the manifest.
    ln -sfn .. build/top
    dirs=$( { find libsp -type d; echo tests/unit; echo fuzz; printf '%s\n' sp-*; } |
        LC_ALL=C sort | sed 's|^|build/top/|' | xargs)
    {
        echo "# generated by configure.sh — do not edit"
        echo "build build.ninja: gen | configure.sh $dirs $(echo tests/unit/*.c)"
    } >build/gen-deps.ninja.tmp
    mv build/gen-deps.ninja.tmp build/gen-deps.ninja
}
if [ -n "$regen" ]; then
    cd "$(dirname "$0")"
    write_gen
    touch build.ninja   # read again by the ninja that asked for it
    exit 0
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
LIBIBERTY_TAR=libiberty_20230104.orig.tar.xz
PINNED="\
fb8b0e8d0802005b9a309c60c1d8de32dd2951b56f0c3a3cb56d21ce01595dff  $ELFUTILS_TAR
e990107f80c62afc1deb51de230023a1098db801b8ea6bf483e296d45459e234  $ZYDIS_TAR
71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1  $ZLIB_TAR
20daa9552e632c9a08443690c6933c34f2f63a8d2eb60125688823a20f7322c3  $ZYCORE_DEB
f0c873589b983a2e82287d1beea3b230959803121ede290154d44008984013ef  $LIBIBERTY_TAR"
# The arm64 build (ninja aarch64): the same elfutils, zlib and libiberty
# tarballs, and musl for arm64 (no Zydis: it decodes x86 only).
MUSL_ARM64_DEB=musl-dev_1.2.3-1_arm64.deb
MUSL_ARM64_SHA256=55c2ca4bc3041c8ed8ac7dc3ef6080d9551a21650568b2fd7610b59eaf98a4f4
PINNED_AARCH64="\
$(grep -e " $ELFUTILS_TAR\$" -e " $ZLIB_TAR\$" -e " $LIBIBERTY_TAR\$" <<<"$PINNED")
$MUSL_ARM64_SHA256  $MUSL_ARM64_DEB"
declare -A SUM
while read -r _sum _file; do SUM[$_file]=$_sum; done <<<"$PINNED
$PINNED_AARCH64"

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
    for a in "$DEPS"/{musl,glibc}/lib/lib{elf,Zydis,z,iberty-demangle}.a \
        "$DEPS/asan/lib/libiberty-demangle.a"; do [ -f "$a" ] || return 1; done
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

deps_src_recipe() {   # deps_src_recipe [PINNED]: the files and their sums
    echo "configure: to build without fetching, put these files in a directory DIR" >&2
    echo "configure: (any Debian mirror's pool/ serves them) and run ./configure.sh --deps-src DIR:" >&2
    awk '!seen[$0]++' <<<"${1:-$PINNED}" |
        while read -r sum file; do echo "configure:   $file  sha256 $sum" >&2; done
}

# private_apt [ARCH]: the private apt directory build/deps/apt, with the
# machine's sources (write_private_sources), lists and caches of its own,
# and its indexes fetched now, of ARCH's packages too; sets APT_O.  The
# system's apt state stays untouched.
private_apt() {
    local apt=$DEPS/apt
    command -v apt-get >/dev/null || { deps_src_recipe "$PINNED${1:+
$PINNED_AARCH64}"; die "apt-get not available"; }
    rm -rf "$apt"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    write_private_sources "$apt"
    APT_O=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=/var/lib/dpkg/status"
           -o "Dir::Cache=$apt/cache" -o "Dir::Cache::Archives=$apt/cache/archives"
           -o APT::Sandbox::User=root)
    [ -z "${1:-}" ] || APT_O+=(-o "APT::Architectures=$(dpkg --print-architecture),$1")
    apt-get "${APT_O[@]}" update >>"$LOG/fetch.log" 2>&1 || true
    # apt-get update exits 0 when every source failed: look at what it got.
    ls "$apt/lists/"*Sources* >/dev/null 2>&1 ||
        echo "configure: warning: apt-get update got no source index from the machine's apt sources (no network, or no mirror answering?)" >&2
}

# fetch_sources: the five pinned files into $SRC (with --aarch64, the
# fifth, musl-dev for arm64, too).
fetch_sources() {
    local bad=0
    mkdir -p "$SRC"
    say "fetching elfutils, zydis, zlib, libiberty sources and libzycore-dev${aarch64:+ and musl-dev:arm64}"
    private_apt ${aarch64:+arm64}
    fetch_file src elfutils "$ELFUTILS_TAR" "${SUM[$ELFUTILS_TAR]}" || bad=1
    fetch_file src zydis "$ZYDIS_TAR" "${SUM[$ZYDIS_TAR]}" || bad=1
    fetch_file src zlib "$ZLIB_TAR" "${SUM[$ZLIB_TAR]}" || bad=1
    fetch_file deb libzycore-dev "$ZYCORE_DEB" "${SUM[$ZYCORE_DEB]}" || bad=1
    fetch_file src libiberty "$LIBIBERTY_TAR" "${SUM[$LIBIBERTY_TAR]}" || bad=1
    [ -z "$aarch64" ] || fetch_file deb musl-dev:arm64 "$MUSL_ARM64_DEB" "${SUM[$MUSL_ARM64_DEB]}" || bad=1
    rm -rf "$DEPS/apt/lists" "$DEPS/apt/cache"   # ~40 MB of indexes, only needed for fetching
    [ "$bad" = 0 ] || { deps_src_recipe "$PINNED${aarch64:+
$PINNED_AARCH64}"; exit 1; }
}

verify_sums() {   # verify_sums DIR [PINNED]
    local sum file actual
    while read -r sum file; do
        [ -f "$1/$file" ] || die "missing $file in $1"
        actual=$(sha256sum "$1/$file" | cut -d' ' -f1)
        [ "$actual" = "$sum" ] || die "sha256 mismatch for $1/$file: expected $sum, actual $actual"
    done <<<"${2:-$PINNED}"
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

# libiberty's config.h normally comes from its ./configure; the three files
# built (cp-demangle.c, rust-demangle.c, safe-ctype.c) read only these: C99
# headers that glibc and musl both have.
write_iberty_config() {
    mkdir -p "$1/iberty"
    cat >"$1/iberty/config.h" <<'EOF'
/* generated by stackpulse configure.sh for libiberty's demanglers only */
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_LIMITS_H 1
#define HAVE_ALLOCA_H 1
EOF
}

# Smoke test: the archives link statically and work.
write_deps_test() {
    cat >"$1/deps_test.c" <<'EOF'
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include <libiberty/demangle.h>
#ifdef DEPS_ZYDIS
#include <Zydis/Zydis.h>
#endif
static void put(const char *s, size_t n, void *o) { strncat(o, s, n); }
int main(void) {
    char dm[64] = "";
    if (elf_version(EV_CURRENT) == EV_NONE) return 1;
#ifdef DEPS_ZYDIS
    ZydisDecoder d;
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) return 2;
#endif
    if (!cplus_demangle_v3_callback("_ZN1a1fEi", DMGL_PARAMS, put, dm) || strcmp(dm, "a::f(int)") != 0) return 3;
    return strcmp(zlibVersion(), ZLIB_VERSION) != 0 || puts("deps ok") < 0;
}
EOF
}

# build_iberty NAME CC [CROSS [CFLAGS...]]: libiberty's demanglers into
# build/deps/NAME/lib/libiberty-demangle.a, their header into
# include/libiberty/.  Only the three files the Itanium C++ and Rust
# demanglers need, not the whole libiberty (pex, obstack, ...): they
# carry the GCC runtime linking exception, the rest of libiberty does
# not.  CFLAGS replace the usual ones (the ASan build's).
build_iberty() {
    local name=$1 cc=$2 cross=${3:-} out=$DEPS/$1 obj=$DEPS/obj/$1/iberty i=$DEPS/x/libiberty flags ccv
    shift 3 || shift $#
    if [ $# -gt 0 ]; then flags=("$@"); else read -ra flags <<<"$CFLAGS_DEPS"; fi
    read -ra ccv <<<"$cc"
    say "building libiberty's demanglers ($name)"
    rm -rf "$obj" && mkdir -p "$obj" "$out/lib" "$out/include/libiberty"
    printf '%s\n' "$i/libiberty/"{cp-demangle,rust-demangle,safe-ctype}.c |
        compile "iberty-$name" "$obj" "${ccv[@]}" "${flags[@]}" -DHAVE_CONFIG_H \
        -I"$DEPS/x/gen/iberty" -I"$i/include"
    rm -f "$out/lib/libiberty-demangle.a"
    run "iberty-$name" "${cross}ar" rcs "$out/lib/libiberty-demangle.a" "$obj"/*.o
    cp "$i/include/"{demangle.h,libiberty.h,ansidecl.h} "$out/include/libiberty/"
}

# build_flavor NAME CC [CROSS]: zlib, libelf and Zydis into
# build/deps/NAME/{include,lib}, and a program that links them.  CC may
# carry options (a cross compiler's -specs).  CROSS is a cross toolchain's
# prefix (aarch64-linux-gnu-): its ar, zlib's CHOST, and no Zydis (it
# decodes x86 only; x86-64's leaf analysis is its only user); the
# program runs under qemu-user where there is one.
build_flavor() {
    local name=$1 cc=$2 cross=${3:-} out=$DEPS/$1 obj=$DEPS/obj/$1 x=$DEPS/x flags ccv
    read -ra flags <<<"$CFLAGS_DEPS"
    read -ra ccv <<<"$cc"
    rm -rf "${out:?}/include" "$out/lib" "$obj"
    mkdir -p "$out/include" "$out/lib" "$obj/zlib" "$obj/elf" "$obj/zydis"

    # zlib: its own configure is quick and handles musl-gcc fine. It builds
    # in-tree, hence one unpacked copy per flavor.
    say "building zlib ($name)"
    run "zlib-$name" tar -xjf "$SRC/$ZLIB_TAR" -C "$obj/zlib" --strip-components=1
    (cd "$obj/zlib" && CHOST=${cross%-} CC=$cc CFLAGS=$CFLAGS_DEPS ./configure --static --prefix="$out" &&
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
    echo "$srcs" | sed "s|^|$e/libelf/|" | compile "libelf-$name" "$obj/elf" "${ccv[@]}" "${flags[@]}" \
        -std=gnu99 -D_GNU_SOURCE -DHAVE_CONFIG_H -I"$x/gen" -I"$e/libelf" -I"$e/lib" -I"$out/include"
    run "libelf-$name" "${cross}ar" rcs "$out/lib/libelf.a" "$obj"/elf/*.o
    cp "$e/libelf/libelf.h" "$e/libelf/gelf.h" "$e/libelf/nlist.h" "$out/include/"
    build_iberty "$name" "$cc" "$cross"

    # Zydis 4 needs no generated Zydis/ZycoreExportConfig.h: the *_STATIC_BUILD
    # defines select static linkage, and it uses only Zycore's headers (no
    # Zycore code), taken from the libzycore-dev .deb. C11 as upstream's CMake.
    local zydis=(-DDEPS_ZYDIS -DZYDIS_STATIC_BUILD -DZYCORE_STATIC_BUILD) libs=(libelf.a libZydis.a libz.a libiberty-demangle.a)
    if [ -z "$cross" ]; then
        say "building Zydis ($name)"
        printf '%s\n' "$x/zydis/src/"*.c | compile "zydis-$name" "$obj/zydis" "${ccv[@]}" "${flags[@]}" \
            -std=gnu11 -DZYDIS_STATIC_BUILD -DZYCORE_STATIC_BUILD \
            -I"$x/zydis/include" -I"$x/zydis/src" -I"$x/zycore/usr/include"
        run "zydis-$name" ar rcs "$out/lib/libZydis.a" "$obj"/zydis/*.o
        cp -R "$x/zydis/include/Zydis" "$x/zycore/usr/include/Zycore" "$out/include/"
    else
        zydis=() libs=(libelf.a libz.a libiberty-demangle.a)
    fi

    say "testing static link ($name)"
    run "test-$name" "${ccv[@]}" -static -O2 -Wall -Werror -I"$out/include" "${zydis[@]}" \
        "$x/gen/deps_test.c" "${libs[@]/#/$out/lib/}" -o "$obj/deps_test"
    [ -n "$cross" ] || { run "test-$name" "$obj/deps_test"; return 0; }
    local qemu
    qemu=$(command -v "qemu-${cross%%-*}-static" || command -v "qemu-${cross%%-*}") ||
        { say "not run here: no qemu-${cross%%-*}"; return 0; }
    run "test-$name" "$qemu" "$obj/deps_test"
}

build_deps() {
    local x=$DEPS/x
    rm -rf "$DEPS/.stamp" "$x" "$DEPS/obj"
    mkdir -p "$x/elfutils" "$x/zydis" "$x/zycore" "$x/libiberty" "$x/gen"
    say "unpacking sources"
    run unpack tar -xjf "$SRC/$ELFUTILS_TAR" -C "$x/elfutils" --strip-components=1
    run unpack tar -xzf "$SRC/$ZYDIS_TAR" -C "$x/zydis" --strip-components=1
    run unpack dpkg-deb -x "$SRC/$ZYCORE_DEB" "$x/zycore"
    run unpack tar -xJf "$SRC/$LIBIBERTY_TAR" -C "$x/libiberty" --strip-components=1
    write_elfutils_config "$x/gen"
    write_iberty_config "$x/gen"
    write_deps_test "$x/gen"
    build_flavor musl musl-gcc
    build_flavor glibc gcc
    # The demanglers read names from files the tools are given: the unit
    # tests and tools under ASan+UBSan check them too (the other
    # archives of that build are glibc's, as before).
    build_iberty asan gcc "" -O1 -g -fPIC -fsanitize=address,undefined \
        -fno-omit-frame-pointer -fno-sanitize-recover=all
    rm -rf "$x" "$DEPS/obj"      # keep only the installed copies
    stamp_text >"$DEPS/.stamp"
}

# ---------------------------------------------------------------- aarch64
# ninja aarch64: static musl binaries for arm64, cross-built.  Nothing of
# it happens until asked for (./configure.sh --aarch64, or the first
# ninja aarch64, which runs --aarch64-deps): a plain configure and ninja
# test need none of it.  In build/deps/aarch64/: sysroot/ (musl for
# arm64), kinclude/ (arm64's kernel headers), include/ and lib/ (zlib and
# libelf from the same tarballs as the host's).
AARCH64="aarch64-linux-gnu-"
AARCH64_PKGS="gcc-aarch64-linux-gnu linux-libc-dev-arm64-cross"
AARCH64_KHDR=/usr/aarch64-linux-gnu/include
MUSL_SPECS=usr/lib/aarch64-linux-musl/musl-gcc.specs

aarch64_stamp_text() {
    printf 'recipe %s\ncflags %s\n%s\n' "$RECIPE" "$CFLAGS_DEPS" "$PINNED_AARCH64"
    printf '%sgcc: %s\n' "$AARCH64" "$("${AARCH64}gcc" --version | head -n 1)"
}
aarch64_current() {
    local d=$DEPS/aarch64
    [ -f "$d/.stamp" ] && [ "$(cat "$d/.stamp")" = "$(aarch64_stamp_text)" ] &&
        [ -f "$d/lib/libelf.a" ] && [ -f "$d/lib/libz.a" ] && [ -f "$d/lib/libiberty-demangle.a" ] &&
        [ -f "$d/sysroot/$MUSL_SPECS" ]
}

# The cross compiler, its binutils and arm64's kernel headers (only a
# Recommends of the compiler), installed by the step that needs them.
aarch64_tools() {
    command -v "${AARCH64}gcc" >/dev/null && [ -f "$AARCH64_KHDR/asm/perf_regs.h" ] && return 0
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null ||
        die "no arm64 cross compiler; as root run: apt-get install $AARCH64_PKGS"
    say "installing $AARCH64_PKGS"
    local apt=(apt-get -o DPkg::Lock::Timeout=600)
    run apt-install "${apt[@]}" update
    # shellcheck disable=SC2086  # word splitting of the package list is intended
    run apt-install env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y \
        --no-install-recommends $AARCH64_PKGS
    command -v "${AARCH64}gcc" >/dev/null && [ -f "$AARCH64_KHDR/asm/perf_regs.h" ] ||
        die "still no ${AARCH64}gcc or $AARCH64_KHDR/asm after apt-get install $AARCH64_PKGS (${LOG#"$top"/}/apt-install.log)"
}

# The three files in SRC: --deps-src's directory (no fetching), else
# configure's build/deps/src, fetching only what is not there yet.
aarch64_sources() {
    local f missing=() bad=0
    SRC=${deps_src:-$DEPS/src}
    for f in "$ELFUTILS_TAR" "$ZLIB_TAR" "$LIBIBERTY_TAR" "$MUSL_ARM64_DEB"; do
        [ -f "$SRC/$f" ] || missing+=("$f")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    [ -z "$deps_src" ] || { deps_src_recipe "$PINNED_AARCH64"; die "--deps-src: ${missing[*]} not in $SRC"; }
    mkdir -p "$SRC"
    say "fetching ${missing[*]}"
    private_apt arm64
    for f in "${missing[@]}"; do
        case $f in
            "$ELFUTILS_TAR") fetch_file src elfutils "$f" "${SUM[$f]}" || bad=1 ;;
            "$ZLIB_TAR") fetch_file src zlib "$f" "${SUM[$f]}" || bad=1 ;;
            "$LIBIBERTY_TAR") fetch_file src libiberty "$f" "${SUM[$f]}" || bad=1 ;;
            *) fetch_file deb musl-dev:arm64 "$f" "${SUM[$f]}" || bad=1 ;;
        esac
    done
    rm -rf "$DEPS/apt/lists" "$DEPS/apt/cache"
    [ "$bad" = 0 ] || { deps_src_recipe "$PINNED_AARCH64"; exit 1; }
}

# musl for arm64: Debian's musl-dev:arm64 unpacked into sysroot/, not
# installed.  Installing it would need dpkg --add-architecture arm64,
# which outlives the build, makes every later apt-get update on the
# machine fetch arm64 indexes from each of its sources (and err on one
# that serves none), and, musl-dev being Multi-Arch: same, cannot install
# while the machine's own musl-dev has another version (a security update
# to one of the two).  The copy touches nothing outside build/.  Its
# musl-gcc.specs names /usr/include/aarch64-linux-musl and
# /usr/lib/aarch64-linux-musl; they become %R/usr/... (%R: gcc's
# --sysroot), so the compile lines can name the sysroot relative to the
# checkout, as build/config.ninja names every dependency.
aarch64_sysroot() {
    local d=$DEPS/aarch64 f
    mkdir -p "$d/sysroot"
    run unpack-aarch64 dpkg-deb -x "$SRC/$MUSL_ARM64_DEB" "$d/sysroot"
    sed -i 's#/usr/\(include\|lib\)/aarch64-linux-musl#%R&#g' "$d/sysroot/$MUSL_SPECS"
    grep -q '%R/usr/lib/aarch64-linux-musl/crti\.o' "$d/sysroot/$MUSL_SPECS" &&
        ! grep -Eq '(^|[^R])/usr/(include|lib)/' "$d/sysroot/$MUSL_SPECS" ||
        die "$MUSL_SPECS of $MUSL_ARM64_DEB is not as expected"
    # Only linux/, asm/ and asm-generic/ of the kernel's headers, as for
    # the host's musl build (kinclude there).
    mkdir -p "$d/kinclude"
    for f in linux asm asm-generic; do ln -sfn "$AARCH64_KHDR/$f" "$d/kinclude/$f"; done
}

aarch64_deps() {
    local x=$DEPS/x d=$DEPS/aarch64
    aarch64_tools
    if aarch64_current; then
        say "aarch64 dependencies up to date (build/deps/aarch64/.stamp)"
        return 0
    fi
    aarch64_sources
    verify_sums "$SRC" "$PINNED_AARCH64"
    rm -rf "$d" "$x" "$DEPS/obj" "$LOG"/*-aarch64.log
    mkdir -p "$x/elfutils" "$x/libiberty" "$x/gen"
    say "unpacking sources (aarch64)"
    run unpack-aarch64 tar -xjf "$SRC/$ELFUTILS_TAR" -C "$x/elfutils" --strip-components=1
    run unpack-aarch64 tar -xJf "$SRC/$LIBIBERTY_TAR" -C "$x/libiberty" --strip-components=1
    write_elfutils_config "$x/gen"
    write_iberty_config "$x/gen"
    write_deps_test "$x/gen"
    aarch64_sysroot
    build_flavor aarch64 "${AARCH64}gcc -specs $d/sysroot/$MUSL_SPECS --sysroot=$d/sysroot" "$AARCH64"
    rm -rf "$x" "$DEPS/obj"
    aarch64_stamp_text >"$d/.stamp"
}

if [ -n "$fetch_only" ]; then
    SRC=$fetch_only; fetch_sources
    verify_sums "$SRC"
    [ -z "$aarch64" ] || verify_sums "$SRC" "$PINNED_AARCH64"
    say "the pinned files are in $SRC; build with: ./configure.sh --deps-src $SRC${aarch64:+ --aarch64}"
    exit 0
fi
if [ "$aarch64" = only ]; then
    aarch64_deps
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
    musl_dep_libs "$deps/musl/lib/libelf.a $deps/musl/lib/libZydis.a $deps/musl/lib/libz.a $deps/musl/lib/libiberty-demangle.a"
    glibc_dep_cflags "-I$deps/glibc/include $dep_defs"
    glibc_dep_libs "$deps/glibc/lib/libelf.a $deps/glibc/lib/libZydis.a $deps/glibc/lib/libz.a $deps/glibc/lib/libiberty-demangle.a"
    asan_dep_libs "$deps/glibc/lib/libelf.a $deps/glibc/lib/libZydis.a $deps/glibc/lib/libz.a $deps/asan/lib/libiberty-demangle.a"
    criterion_cflags "$(pkg-config --cflags criterion | trim)"
    criterion_libs "$(pkg-config --libs criterion | trim)"
    # ninja aarch64's (the files are there once --aarch64-deps has run)
    aarch64_cross "$AARCH64"
    aarch64_cc "${AARCH64}gcc -specs $deps/aarch64/sysroot/$MUSL_SPECS --sysroot=$deps/aarch64/sysroot"
    aarch64_dep_cflags "-I$deps/aarch64/include -isystem $deps/aarch64/kinclude"
    aarch64_dep_libs "$deps/aarch64/lib/libelf.a $deps/aarch64/lib/libz.a $deps/aarch64/lib/libiberty-demangle.a"
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
write_gen
say "wrote build/config.ninja, build/config.sh and build/gen.ninja"
[ -z "$aarch64" ] || aarch64_deps
say "done; now run: ninja test${aarch64:+ (and ninja aarch64 for arm64)}"
