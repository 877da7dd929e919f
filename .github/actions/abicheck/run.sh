#!/usr/bin/env bash
# The steps of the abicheck composite action (action.yml beside this file;
# docs/ci.md). Each `run:` line of action.yml is `bash run.sh STEP`, and
# lanes/ci/action_test.go runs those very lines, so the logic lives here:
#
#   run.sh build    build abicheck from the simabi tree the action lives in;
#                   create the output directory
#   run.sh check    abicheck -json -junit ... LIBRARY: check.json, check.junit.xml
#   run.sh diff     abicheck diff -json -junit ... BASE LIBRARY: diff.json,
#                   diff.junit.xml (nothing without a base library)
#   run.sh summary  the Markdown summary: $GITHUB_STEP_SUMMARY and summary.md
#   run.sh finish   exit 1 when the check or the diff exited non-zero
#
# check and diff always exit 0 themselves: they record abicheck's exit status
# as the step output exit-code, so that the summary and the upload run before
# finish fails the action. Inputs arrive as INPUT_* variables (the env: of
# each step in action.yml); ABICHECK, ABICHECK_OUTPUT_DIR, CHECK_EXIT and
# DIFF_EXIT are the outputs of earlier steps. The summary reads the JSON with
# jq when there is one (GitHub's hosted runners have it; ABICHECK_JQ names
# another), else the JUnit files' totals.
set -euo pipefail

step=${1:-}
action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# output NAME VALUE: a step output (GitHub reads $GITHUB_OUTPUT after the step).
output() {
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
	fi
}

# annotate LEVEL TITLE MESSAGE: a workflow command GitHub shows on the run.
annotate() {
	printf '::%s title=%s::%s\n' "$1" "$2" "$3"
}

need() {
	local v
	for v in "$@"; do
		if [ -z "${!v:-}" ]; then
			echo "run.sh $step: $v is not set (run the steps of action.yml in order)" >&2
			exit 2
		fi
	done
}

# firstline FILE: the first non-empty line of a log, for the summary.
firstline() {
	if [ -s "$1" ]; then
		grep -m1 -v '^[[:space:]]*$' "$1" || true
	fi
}

is_builtin() {
	case "$1" in sim:*) return 0 ;; esac
	return 1
}

# run_abicheck NAME ARGS...: abicheck ARGS > OUT/NAME.json 2> OUT/NAME.log,
# the log echoed to the step's log; prints the exit status.
run_abicheck() {
	local name=$1 rc=0
	shift
	echo "+ abicheck $*" >&2
	"$ABICHECK" "$@" >"$ABICHECK_OUTPUT_DIR/$name.json" 2>"$ABICHECK_OUTPUT_DIR/$name.log" || rc=$?
	cat "$ABICHECK_OUTPUT_DIR/$name.log" >&2
	echo "$rc"
}

step_build() {
	local out=${INPUT_OUTPUT_DIR:-abicheck-results} src bindir
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	# what an earlier run of the action in this job left would mix with ours
	rm -rf "$out/repro"
	rm -f "$out"/check.* "$out"/diff.* "$out/summary.md"
	src=$(cd "$action_dir/../../.." && pwd)
	if [ -n "${RUNNER_TEMP:-}" ]; then
		bindir="$RUNNER_TEMP/simabi-abicheck"
		mkdir -p "$bindir"
	else
		bindir=$(mktemp -d)
	fi
	echo "building abicheck from $src"
	(cd "$src" && CGO_ENABLED=0 go build -o "$bindir/abicheck" ./cmd/abicheck)
	output abicheck "$bindir/abicheck"
	output output-dir "$out"
}

step_check() {
	need ABICHECK ABICHECK_OUTPUT_DIR INPUT_LIBRARY
	local out=$ABICHECK_OUTPUT_DIR p rc
	local -a args=(-json -junit "$out/check.junit.xml" -repro-dir "$out/repro/check" -write-baseline "$out/check.baseline")
	local -a preloads=() extra=()
	read -r -a preloads <<<"${INPUT_PRELOAD:-}" || true
	for p in ${preloads[@]+"${preloads[@]}"}; do
		args+=(-preload "$p")
	done
	if [ -n "${INPUT_BASELINE:-}" ]; then
		args+=(-baseline "$INPUT_BASELINE")
	fi
	read -r -a extra <<<"${INPUT_ARGS:-}" || true
	args+=(${extra[@]+"${extra[@]}"})
	rc=$(run_abicheck check "${args[@]}" "$INPUT_LIBRARY")
	case "$rc" in
	0) echo "abicheck: $INPUT_LIBRARY passes" ;;
	1) annotate error "abicheck check" "$INPUT_LIBRARY breaks the contract (exit 1): see check.json and check.junit.xml" ;;
	*) annotate error "abicheck check" "$INPUT_LIBRARY was not checked (exit $rc): $(firstline "$out/check.log")" ;;
	esac
	output exit-code "$rc"
}

step_diff() {
	need ABICHECK ABICHECK_OUTPUT_DIR INPUT_LIBRARY
	local out=$ABICHECK_OUTPUT_DIR base=${INPUT_BASE_LIBRARY:-} p rc
	if [ -z "$base" ]; then
		echo "abicheck diff: no base-library given; no diff"
		output exit-code ""
		return
	fi
	if ! is_builtin "$base" && [ ! -e "$base" ]; then
		annotate error "abicheck diff" "base-library $base: no such file (build the base branch's libhost_runtime.so before this action)"
	fi
	if ! is_builtin "$INPUT_LIBRARY" && [ ! -e "$INPUT_LIBRARY" ]; then
		annotate error "abicheck diff" "library $INPUT_LIBRARY: no such file"
	fi
	local -a args=(diff -json -junit "$out/diff.junit.xml" -repro-dir "$out/repro/diff" -write-baseline "$out/diff.baseline")
	local -a preloads=() extra=()
	read -r -a preloads <<<"${INPUT_PRELOAD:-}" || true
	for p in ${preloads[@]+"${preloads[@]}"}; do
		args+=(-preload "$p")
	done
	if [ -n "${INPUT_DIFF_BASELINE:-}" ]; then
		args+=(-baseline "$INPUT_DIFF_BASELINE")
	fi
	read -r -a extra <<<"${INPUT_DIFF_ARGS:-}" || true
	args+=(${extra[@]+"${extra[@]}"})
	rc=$(run_abicheck diff "${args[@]}" "$base" "$INPUT_LIBRARY")
	case "$rc" in
	0) echo "abicheck diff: no change from $base to $INPUT_LIBRARY" ;;
	1) annotate error "abicheck diff" "$base → $INPUT_LIBRARY: the builds differ (exit 1): see diff.json and diff.junit.xml" ;;
	*) annotate error "abicheck diff" "$base → $INPUT_LIBRARY: not compared (exit $rc): $(firstline "$out/diff.log")" ;;
	esac
	output exit-code "$rc"
}

have_jq() {
	command -v "${ABICHECK_JQ:-jq}" >/dev/null 2>&1
}

jq_() {
	"${ABICHECK_JQ:-jq}" "$@"
}

# junit_total FILE ATTR: an attribute of the <testsuites> element of a JUnit
# file, else of its first <testsuite>.
junit_total() {
	local v=""
	[ -s "$1" ] || return 0
	v=$(grep -m1 -o "<testsuites[ >][^>]*" "$1" | grep -o " $2=\"[0-9]*\"" | grep -o '[0-9][0-9]*' || true)
	if [ -z "$v" ]; then
		v=$(grep -m1 -o "<testsuite[ >][^>]*" "$1" | grep -o " $2=\"[0-9]*\"" | grep -o '[0-9][0-9]*' || true)
	fi
	echo "$v"
}

# md: Markdown-safe text for a table cell.
md() {
	printf '%s' "$1" | tr '\n' ' ' | sed 's/|/\\|/g'
}

# check_line: the check's summary line (abicheck's own, from check.json).
check_line() {
	local f=$ABICHECK_OUTPUT_DIR/check.json x
	if have_jq && [ -s "$f" ]; then
		jq_ -r '.targets[]
			| "\(.target.path): \(.summary.pass) pass, \(.summary.fail) fail, \(.summary.warn) warn, \(.summary.skip) skip, \(.summary.crash) crash, \(.summary.hang) hang"
			+ (if (.summary.known // 0) > 0 then ", \(.summary.known) known" else "" end)
			+ " — \(.sequences) random sequences × \(.max_ops) ops (seed \(.seed)), \(.ops) calls checked, \(.duration_ms / 100 | floor / 10)s"' "$f" 2>/dev/null && return
	fi
	x=$ABICHECK_OUTPUT_DIR/check.junit.xml
	if [ -s "$x" ]; then
		echo "$INPUT_LIBRARY: $(junit_total "$x" tests) rules, $(junit_total "$x" failures) failed, $(junit_total "$x" errors) errors, $(junit_total "$x" skipped) skipped"
	fi
}

# check_failures: a table row per rule that failed, crashed or hung.
check_failures() {
	local f=$ABICHECK_OUTPUT_DIR/check.json
	have_jq && [ -s "$f" ] || return 0
	# shellcheck disable=SC2016 # $r is jq's
	jq_ -r '[.targets[] | .results[]
		| select(.verdict == "fail" or .verdict == "crash" or .verdict == "hang")] as $r
		| if ($r | length) == 0 then empty else
			"| Rule | Verdict | Detail |", "|---|---|---|",
			($r[:20][] | "| \(.rule) | \(.verdict) | \(.detail | gsub("[\n|]"; " ")) |"),
			(if ($r | length) > 20 then "", "(\($r | length - 20) more in check.json)" else empty end)
		end' "$f" 2>/dev/null || true
}

# diff_counts: "N DETAIL" from diff.json's summary: N the changes that fail
# the diff (new call changes, speed changes, changes in what the builds are),
# DETAIL them one by one; else N the failures of diff.junit.xml; empty when
# neither says.
diff_counts() {
	local f=$ABICHECK_OUTPUT_DIR/diff.json n=""
	if have_jq && [ -s "$f" ]; then
		# shellcheck disable=SC2016 # $s and $t are jq's
		n=$(jq_ -r 'select(.summary.changes != null) | .summary as $s | (.target_changes // [] | length) as $t
			| "\($s.changes - ($s.known // 0) + ($s.speed_changes // 0) + $t) \($s.changes - ($s.known // 0)) in calls (\($s.causes // 0) causes, \($s.groups // 0) groups), \($s.speed_changes // 0) in speed"
			+ (if $t > 0 then ", \($t) in what the builds are" else "" end)
			+ (if ($s.known // 0) > 0 then "; \($s.known) known" else "" end)
			+ "; \($s.cases) cases (\($s.random) random)"' "$f" 2>/dev/null || true)
	fi
	if [ -z "$n" ]; then
		n=$(junit_total "$ABICHECK_OUTPUT_DIR/diff.junit.xml" failures)
	fi
	echo "$n"
}

# diff_changes: a table row per cause of diff.json with a new change: the
# entry and what changed in its result, its new changes, the cases that
# showed them and the clause groups they touched.
diff_changes() {
	local f=$ABICHECK_OUTPUT_DIR/diff.json
	have_jq && [ -s "$f" ] || return 0
	# shellcheck disable=SC2016 # $c is jq's
	jq_ -r '[.causes // [] | .[] | select(.changes > (.known // 0))] as $c
		| if ($c | length) == 0 then empty else
			"| Cause | Changes | Cases | Clause groups |", "|---|---|---|---|",
			($c[:20][] | "| \(.title | gsub("[\n|]"; " ")) | \(.changes - (.known // 0)) | \(.cases) | \([.groups[].group]
				| if length > 5 then .[:5] + ["and \(length - 5) more"] else . end | join("; ") | gsub("[\n|]"; " ")) |"),
			(if ($c | length) > 20 then "", "(\($c | length - 20) more in diff.json)" else empty end)
		end' "$f" 2>/dev/null || true
}

step_summary() {
	if [ -z "${ABICHECK_OUTPUT_DIR:-}" ]; then
		echo "**abicheck: not built** (see the step's log)" | tee -a "${GITHUB_STEP_SUMMARY:-/dev/null}"
		return
	fi
	local out=$ABICHECK_OUTPUT_DIR ce=${CHECK_EXIT:-} de=${DIFF_EXIT:-} base=${INPUT_BASE_LIBRARY:-} n line f files count detail
	{
		echo "### abicheck: \`${INPUT_LIBRARY:-}\`"
		echo
		line=$(check_line)
		case "$ce" in
		0) echo "**check: passed** — \`$line\`" ;;
		1)
			echo "**check: findings** (exit 1) — \`$line\`"
			echo
			check_failures
			;;
		"") echo "**check: did not run**" ;;
		*) echo "**check: not checked** (exit $ce) — $(md "$(firstline "$out/check.log")")" ;;
		esac
		echo
		case "$de" in
		0 | 1)
			n=$(diff_counts)
			count=${n%% *} detail=""
			if [ "$n" != "$count" ]; then
				detail=" — ${n#* }"
			fi
			if [ "$de" = 0 ]; then
				echo "**diff: no change** (\`$base\` → \`${INPUT_LIBRARY:-}\`)$detail"
			else
				case "$count" in
				"") count="changes" ;;
				1) count="1 change" ;;
				*) count="$count changes" ;;
				esac
				echo "**diff: $count** (exit 1; \`$base\` → \`${INPUT_LIBRARY:-}\`)$detail"
				echo
				diff_changes
			fi
			;;
		"")
			if [ -z "$base" ]; then
				echo "**diff: none** (no base-library)"
			else
				echo "**diff: did not run**"
			fi
			;;
		*) echo "**diff: not compared** (exit $de; \`$base\` → \`${INPUT_LIBRARY:-}\`) — $(md "$(firstline "$out/diff.log")")" ;;
		esac
		echo
		files=""
		for f in "$out"/check.* "$out"/diff.* "$out"/repro; do
			if [ -e "$f" ]; then
				files="$files \`${f#"$out"/}\`"
			fi
		done
		echo "Files in $(basename "$out"):${files:- none}"
	} >"$out/summary.md"
	cat "$out/summary.md"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
	fi
}

step_finish() {
	local ce=${CHECK_EXIT:-} de=${DIFF_EXIT:-} fail=0
	if [ "$ce" != 0 ]; then
		echo "abicheck: the check of ${INPUT_LIBRARY:-} exited ${ce:-(did not run)}" >&2
		fail=1
	fi
	if [ -n "$de" ] && [ "$de" != 0 ]; then
		echo "abicheck: the diff against ${INPUT_BASE_LIBRARY:-} exited $de" >&2
		fail=1
	fi
	if [ "$fail" = 0 ]; then
		echo "abicheck: passed"
	else
		echo "abicheck: failed; the results are in ${ABICHECK_OUTPUT_DIR:-the output directory}" >&2
	fi
	return "$fail"
}

case "$step" in
build | check | diff | summary | finish) "step_$step" ;;
*)
	echo "usage: run.sh build|check|diff|summary|finish" >&2
	exit 2
	;;
esac
