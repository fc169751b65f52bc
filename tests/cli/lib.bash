# Helpers for the CLI tests: each check prints PASS or FAIL with its name;
# tests/run.sh counts them.  A script ends with `done_testing`.
set -u
OUT= ERR= RC=
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
BIN=build/bin
TMP=build/test-tmp/$(basename "$0" .sh)
mkdir -p "$TMP"

# run CMD...: runs it, keeping stdout, stderr and status in OUT, ERR, RC.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1"
	shift
	printf '    %s\n' "$@"
}

# check NAME COND...: COND is a command; passes when it succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "rc=${RC:-?}" \
	    "stdout: ${OUT:0:300}" "stderr: ${ERR:0:300}"; fi
}

# need CMD PACKAGE: succeeds when CMD is on PATH, installing PACKAGE with
# apt-get first (as root) where it is not; a fresh machine's package lists
# may be missing or old, so a failed install is retried after apt-get update.
# Output of apt goes to $TMP/apt.log.
need() {
	command -v "$1" >/dev/null && return 0
	[[ $EUID -eq 0 ]] && command -v apt-get >/dev/null || return 1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >>"$TMP/apt.log" 2>&1 ||
		{ apt-get update -qq >>"$TMP/apt.log" 2>&1 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >>"$TMP/apt.log" 2>&1; }
	command -v "$1" >/dev/null
}

# skip NAME REASON: a check that cannot run here; counted apart, never a pass.
skip() { echo "SKIP $1: $2"; }

has() { grep -qF -- "$1" <<<"$2"; }
done_testing() { echo DONE; }
