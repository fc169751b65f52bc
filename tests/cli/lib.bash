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

# skip NAME REASON: a check that cannot run here; counted apart, never a pass.
skip() { echo "SKIP $1: $2"; }

has() { grep -qF -- "$1" <<<"$2"; }
done_testing() { echo DONE; }
