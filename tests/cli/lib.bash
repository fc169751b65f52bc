# Helpers for the CLI tests: each check prints PASS or FAIL with its name;
# tests/run.sh counts them.  A script ends with `done_testing`.
#
# tests/run.sh runs each tests/cli/*.sh as the suite cli/NAME; a script with
# a line "# asan: VAR=PATH..." is run once more as cli/NAME-asan with those
# variables set (the ASan+UBSan builds of the tools it tests).  Each suite
# has its own scratch directory, build/test-tmp/TEST_SUITE (set by run.sh);
# a script run by hand uses its folder and name (cli-record, tests-soak).
set -u
OUT= ERR= RC=
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
BIN=build/bin
TMP=build/test-tmp/${TEST_SUITE:-$(basename "$(dirname "$0")")-$(basename "$0" .sh)}
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

# check NAME COND...: COND is one command; passes when it succeeds.  Returns
# the verdict, but `check NAME A && B` still asserts only A: B's result is
# lost (tests/run.sh's lint refuses that form).  One check per condition.
check() {
	local name=$1
	shift
	if "$@"; then
		pass "$name"
	else
		fail "$name" "rc=${RC:-?}" "stdout: ${OUT:0:300}" "stderr: ${ERR:0:300}"
		return 1
	fi
}

# skip NAME REASON: a check that cannot run here; counted apart, never a
# pass, and listed with its reason at the end of tests/run.sh.
skip() { echo "SKIP $1: $2"; }

has() { grep -qF -- "$1" <<<"$2"; }
done_testing() { echo DONE; }
