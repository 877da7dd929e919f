// Package ci holds the test of the abicheck composite action
// (.github/actions/abicheck, docs/ci.md): it reads action.yml and runs its
// steps in order as GitHub runs a composite action, on emitted fake
// runtimes. It has test files only and imports nothing of the module: the
// action builds abicheck from the source tree, and so does the test.
package ci

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// actionFile is what the test reads of action.yml.
type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name            string            `yaml:"name"`
	ID              string            `yaml:"id"`
	If              string            `yaml:"if"`
	Uses            string            `yaml:"uses"`
	Run             string            `yaml:"run"`
	Shell           string            `yaml:"shell"`
	Env             map[string]string `yaml:"env"`
	With            map[string]string `yaml:"with"`
	ContinueOnError bool              `yaml:"continue-on-error"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func actionDir(t *testing.T) string {
	return filepath.Join(repoRoot(t), ".github", "actions", "abicheck")
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(actionDir(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) == 0 {
		t.Fatalf("action.yml: runs.using %q with %d steps, want a composite action", a.Runs.Using, len(a.Runs.Steps))
	}
	return a
}

// stepRun is what became of one step.
type stepRun struct {
	step    actionStep
	skipped bool // its if: was false
	uses    bool // a uses: step: not run here, its with: evaluated
	with    map[string]string
	exit    int    // a run: step's exit status
	log     string // its stdout and stderr
}

// actionRun is one run of the action.
type actionRun struct {
	steps     []stepRun
	failed    bool                         // the action's final status
	outputs   map[string]map[string]string // step id → its outputs
	action    map[string]string            // the action's outputs
	summary   string                       // what the steps wrote to $GITHUB_STEP_SUMMARY
	workspace string
}

func (r *actionRun) step(t *testing.T, name string) stepRun {
	t.Helper()
	for _, s := range r.steps {
		if s.step.Name == name || (s.step.ID != "" && s.step.ID == name) {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return stepRun{}
}

// runner runs action.yml's steps as a GitHub runner runs a composite
// action: in order, each run: step with `bash --noprofile --norc -eo
// pipefail` on a file holding it, in the workspace, with the variables the
// runner sets (GITHUB_ACTION_PATH, GITHUB_WORKSPACE, a fresh GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY, RUNNER_TEMP, ...) and the step's env: with its
// ${{ }} expressions evaluated; a step whose if: is false is skipped, one
// without if: runs only while no step has failed. uses: steps (setup-go,
// upload-artifact) are not run: their with: is evaluated and kept.
type runner struct {
	action actionFile
	dir    string            // the action's directory
	inputs map[string]string // as given to the action, defaults applied
	env    []string          // added to every step's environment
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// value evaluates the expressions the action uses: inputs.NAME,
// steps.ID.outputs.NAME, github.action_path. Any other fails the test, so
// a new kind of expression in action.yml is taught to the test first.
func (rn *runner) value(t *testing.T, r *actionRun, expr string) string {
	t.Helper()
	if name, ok := strings.CutPrefix(expr, "inputs."); ok {
		if _, declared := rn.action.Inputs[name]; !declared {
			t.Fatalf("action.yml: ${{ %s }}: no input %q", expr, name)
		}
		return rn.inputs[name]
	}
	if m := regexp.MustCompile(`^steps\.([\w-]+)\.outputs\.([\w-]+)$`).FindStringSubmatch(expr); m != nil {
		if !slices.ContainsFunc(rn.action.Runs.Steps, func(s actionStep) bool { return s.ID == m[1] }) {
			t.Fatalf("action.yml: ${{ %s }}: no step with id %q", expr, m[1])
		}
		return r.outputs[m[1]][m[2]]
	}
	if expr == "github.action_path" {
		return rn.dir
	}
	t.Fatalf("action.yml: expression ${{ %s }}: the test does not evaluate it (teach runner.value)", expr)
	return ""
}

func (rn *runner) expand(t *testing.T, r *actionRun, s string) string {
	t.Helper()
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		return rn.value(t, r, exprRE.FindStringSubmatch(m)[1])
	})
}

var compareRE = regexp.MustCompile(`^(inputs\.[\w-]+)\s*(==|!=)\s*'([^']*)'$`)

// cond evaluates an if: of the forms the action uses. A condition without
// a status function holds only while no step failed (GitHub's implicit
// success()).
func (rn *runner) cond(t *testing.T, r *actionRun, expr string) bool {
	t.Helper()
	e := strings.TrimSpace(expr)
	if m := exprRE.FindStringSubmatch(e); m != nil && m[0] == e {
		e = m[1]
	}
	switch e {
	case "", "success()":
		return !r.failed
	case "always()":
		return true
	case "failure()":
		return r.failed
	}
	if m := compareRE.FindStringSubmatch(e); m != nil {
		v := rn.value(t, r, m[1])
		return !r.failed && (v == m[3]) == (m[2] == "==")
	}
	t.Fatalf("action.yml: if: %q: the test does not evaluate it (teach runner.cond)", expr)
	return false
}

// cleanEnv is the test's environment without what a runner would set or
// the action passes between steps.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "INPUT_") ||
			strings.HasPrefix(k, "ABICHECK") || k == "CHECK_EXIT" || k == "DIFF_EXIT" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// parseOutputs reads a $GITHUB_OUTPUT file: NAME=VALUE lines and
// NAME<<DELIMITER blocks.
func parseOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			for sc.Scan() && sc.Text() != delim {
				val = append(val, sc.Text())
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(line, "="); ok {
			out[name] = val
		} else if line != "" {
			t.Fatalf("$GITHUB_OUTPUT: line %q", line)
		}
	}
	return out
}

// run runs the action with inputs in workspace.
func (rn *runner) run(t *testing.T, workspace string, inputs map[string]string) *actionRun {
	t.Helper()
	rn.inputs = map[string]string{}
	for name, in := range rn.action.Inputs {
		v, given := inputs[name]
		if !given {
			if in.Required {
				t.Fatalf("input %q is required", name)
			}
			v = in.Default
		}
		rn.inputs[name] = v
	}
	for name := range inputs {
		if _, ok := rn.action.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
	}
	tmp := t.TempDir()
	runnerTemp := filepath.Join(tmp, "runner-temp")
	summary := filepath.Join(tmp, "step-summary.md")
	for _, f := range []string{runnerTemp} {
		if err := os.MkdirAll(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(summary, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := &actionRun{outputs: map[string]map[string]string{}, workspace: workspace}
	for i, s := range rn.action.Runs.Steps {
		sr := stepRun{step: s}
		if !rn.cond(t, r, s.If) {
			sr.skipped = true
			r.steps = append(r.steps, sr)
			continue
		}
		if s.Uses != "" {
			sr.uses, sr.with = true, map[string]string{}
			for k, v := range s.With {
				sr.with[k] = rn.expand(t, r, v)
			}
			r.steps = append(r.steps, sr)
			continue
		}
		if s.Shell != "bash" {
			t.Fatalf("step %q: shell %q; a composite action's run: step names its shell, and this one is bash", s.Name, s.Shell)
		}
		script := filepath.Join(tmp, fmt.Sprintf("step-%d.sh", i))
		outFile := filepath.Join(tmp, fmt.Sprintf("step-%d.output", i))
		if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(outFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		env := append(cleanEnv(),
			"CI=true", "GITHUB_ACTIONS=true",
			"GITHUB_ACTION_PATH="+rn.dir, "GITHUB_WORKSPACE="+workspace,
			"GITHUB_OUTPUT="+outFile, "GITHUB_STEP_SUMMARY="+summary,
			"GITHUB_ENV="+filepath.Join(tmp, "env"), "GITHUB_PATH="+filepath.Join(tmp, "path"),
			"RUNNER_TEMP="+runnerTemp)
		env = append(env, rn.env...)
		for k, v := range s.Env {
			env = append(env, k+"="+rn.expand(t, r, v))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir, cmd.Env = workspace, env
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		sr.log = string(out)
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok || timedOut {
				t.Fatalf("step %q: %v\n%s", s.Name, err, out)
			}
			sr.exit = ee.ExitCode()
			if !s.ContinueOnError {
				r.failed = true
			}
		}
		if s.ID != "" {
			r.outputs[s.ID] = parseOutputs(t, outFile)
		}
		r.steps = append(r.steps, sr)
	}
	r.action = map[string]string{}
	for name, o := range rn.action.Outputs {
		r.action[name] = rn.expand(t, r, o.Value)
	}
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	r.summary = string(b)
	return r
}

// logs is every step's log, for a failure message.
func (r *actionRun) logs() string {
	var b strings.Builder
	for _, s := range r.steps {
		switch {
		case s.skipped:
			fmt.Fprintf(&b, "--- %s: skipped\n", s.step.Name)
		case s.uses:
			fmt.Fprintf(&b, "--- %s: uses %s with %v (not run by the test)\n", s.step.Name, s.step.Uses, s.with)
		default:
			fmt.Fprintf(&b, "--- %s: exit %d\n%s", s.step.Name, s.exit, s.log)
		}
	}
	return b.String()
}

// The action's metadata holds together: every input a step reads is
// declared and passed as INPUT_<NAME>, every run: step is a one-line call
// of a run.sh subcommand, the reports are uploaded whatever happened, the
// action fails only after that, and docs/ci.md documents every input and
// output.
func TestActionMetadata(t *testing.T) {
	a := readAction(t)
	script, err := os.ReadFile(filepath.Join(actionDir(t), "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	runRE := regexp.MustCompile(`^bash "\$GITHUB_ACTION_PATH/run\.sh" (\w+)$`)
	upload, finish := -1, -1
	var subcommands []string
	for i, s := range a.Runs.Steps {
		for k, v := range s.Env {
			if name, ok := strings.CutPrefix(v, "${{ inputs."); ok {
				name = strings.TrimSuffix(name, " }}")
				if want := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")); k != want {
					t.Errorf("step %q: input %s passed as %s, want %s", s.Name, name, k, want)
				}
			}
		}
		switch {
		case s.Run != "":
			m := runRE.FindStringSubmatch(strings.TrimSpace(s.Run))
			if m == nil {
				t.Errorf("step %q: run: %q is not one call of run.sh", s.Name, s.Run)
				continue
			}
			if !regexp.MustCompile(`(?m)^step_` + m[1] + `\(\)`).Match(script) {
				t.Errorf("step %q: run.sh has no subcommand %s", s.Name, m[1])
			}
			subcommands = append(subcommands, m[1])
			if m[1] == "finish" {
				finish = i
			}
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			upload = i
			if s.If != "always()" {
				t.Errorf("the upload step runs if %q, want always()", s.If)
			}
			if s.With["path"] != "${{ inputs.output-dir }}" {
				t.Errorf("the upload step uploads %q, want the output directory", s.With["path"])
			}
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			if s.If == "" {
				t.Errorf("setup-go runs unconditionally; it is guarded by the setup-go input")
			}
		default:
			t.Errorf("step %q: uses %q, which the test does not know", s.Name, s.Uses)
		}
	}
	if want := []string{"build", "check", "diff", "summary", "finish"}; !slices.Equal(subcommands, want) {
		t.Errorf("run.sh steps %v, want %v", subcommands, want)
	}
	if upload < 0 || finish != len(a.Runs.Steps)-1 || upload > finish {
		t.Errorf("upload is step %d and finish step %d of %d: the action fails last, after the upload", upload, finish, len(a.Runs.Steps))
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range a.Inputs {
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("docs/ci.md: no row for the input `%s`", name)
		}
	}
	for name := range a.Outputs {
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("docs/ci.md: no row for the output `%s`", name)
		}
	}
}

func haveCC() bool {
	for _, cc := range []string{os.Getenv("CC"), "cc", "gcc", "clang"} {
		if f := strings.Fields(cc); len(f) > 0 {
			if _, err := exec.LookPath(f[0]); err == nil {
				return true
			}
		}
	}
	return false
}

// genFake emits a fake runtime (docs/fake-runtime.md) into dir with the
// gen-fake-runtime binary gen.
func genFake(t *testing.T, gen, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(gen, append([]string{"-o", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen-fake-runtime %v: %v\n%s", args, err, out)
	}
}

// decodeFile requires path to exist and parse as JSON or XML.
func decodeFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", filepath.Base(path), err)
		return
	}
	var v any
	switch filepath.Ext(path) {
	case ".json":
		err = json.Unmarshal(b, &v)
	case ".xml":
		var suites struct {
			XMLName xml.Name
		}
		err = xml.Unmarshal(b, &suites)
		if err == nil && suites.XMLName.Local != "testsuites" && suites.XMLName.Local != "testsuite" {
			err = fmt.Errorf("root element <%s>, want JUnit's <testsuites>", suites.XMLName.Local)
		}
	}
	if err != nil {
		t.Errorf("%s: %v\n%.400s", filepath.Base(path), err, b)
	}
}

// The action, step by step, on emitted fakes: a conforming build against
// itself passes; a mutant fails the check and differs from the base; no
// base-library means no diff; a base-library that does not exist makes
// the diff exit 2. The reports are written and uploaded in every case.
func TestActionRunsItsSteps(t *testing.T) {
	if !haveCC() {
		t.Skip("no C compiler (set CC or install gcc): the action's test checks emitted fakes")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash: the action's steps are bash")
	}
	a := readAction(t)
	root := repoRoot(t)
	gen := filepath.Join(t.TempDir(), "gen-fake-runtime")
	build := exec.Command("go", "build", "-o", gen, "./cmd/gen-fake-runtime")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gen-fake-runtime: %v\n%s", err, out)
	}
	_, jq := exec.LookPath("jq")
	haveJQ := jq == nil

	// Ten random sequences and no refusal probes (a child process each;
	// the action passes its args through, and cmd/abicheck's tests own
	// the probes) keep each run to seconds. The diff leaves out its speed
	// comparison: two identical builds timed beside the other packages of
	// make test are noise, and cmd/abicheck's tests own it.
	const quick = "-sequences 10 -no-probes"
	const quickDiff = quick + " -no-speed"
	cases := []actionCase{
		{name: "conforming", base: "base/libhost_runtime.so", checkExit: "0", diffExit: "0",
			summary:   []string{`\*\*check: passed\*\*`, `\*\*diff: no change\*\* \(`},
			jqSummary: []string{`\*\*check: passed\*\* — .*: \d+ pass, 0 fail, `, `\*\*diff: no change\*\* .* — 0 in calls \(0 causes, 0 groups\), 0 in speed; \d+ cases`}},
		{name: "mutant", mutant: "prep-keeps-out", base: "base/libhost_runtime.so", checkExit: "1", diffExit: "1", failed: true,
			summary: []string{`\*\*check: findings\*\* \(exit 1\)`, `\*\*diff: [1-9]\d* changes?\*\* \(exit 1; `},
			jqSummary: []string{`\| V-PREP-1 \| fail \|`, `\*\*diff: [1-9]\d* changes?\*\* \(exit 1; .*\) — [1-9]\d* in calls \([1-9]\d* causes?, [1-9]\d* groups?\)`,
				// the changes by cause: the mutant keeps prepare's out id
				`(?m)^\| simpler_kernel_mode_prepare_callable out: -1 -> [^|]+ \| [1-9]\d* \| [1-9]\d* \| [^|]*V-PREP-1[^|]* \|$`}},
		{name: "no-base", checkExit: "0", diffExit: "",
			summary: []string{`\*\*check: passed\*\*`, `\*\*diff: none\*\* \(no base-library\)`}},
		{name: "missing-base", base: "base/missing/libhost_runtime.so", outputDir: "out/abi", checkExit: "0", diffExit: "2", failed: true,
			// the summary without jq: from the JUnit totals
			env:     []string{"ABICHECK_JQ=" + filepath.Join(t.TempDir(), "no-jq")},
			summary: []string{`\*\*check: passed\*\* — .*\d+ rules, 0 failed`, `\*\*diff: not compared\*\* \(exit 2;`},
			diffLog: "base/missing/libhost_runtime.so"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			ws := t.TempDir()
			inputs := map[string]string{"library": "pr/libhost_runtime.so", "args": quick, "diff-args": quickDiff}
			var prArgs []string
			if c.mutant != "" {
				prArgs = []string{"-mutant", c.mutant}
			}
			genFake(t, gen, filepath.Join(ws, "pr"), prArgs...)
			if c.base != "" {
				inputs["base-library"] = c.base
				if !strings.Contains(c.base, "missing") {
					genFake(t, gen, filepath.Join(ws, filepath.Dir(c.base)))
				}
			}
			if c.outputDir != "" {
				inputs["output-dir"] = c.outputDir
			}
			rn := &runner{action: a, dir: actionDir(t), env: c.env}
			r := rn.run(t, ws, inputs)
			t.Logf("%s: the action ran in %v", c.name, time.Since(start).Round(10*time.Millisecond))
			logs := r.logs()
			if r.failed != c.failed {
				t.Errorf("the action failed: %v, want %v\n%s", r.failed, c.failed, logs)
			}
			if got := r.action["check-exit-code"]; got != c.checkExit {
				t.Errorf("check-exit-code %q, want %q\n%s", got, c.checkExit, logs)
			}
			if got := r.action["diff-exit-code"]; got != c.diffExit {
				t.Errorf("diff-exit-code %q, want %q\n%s", got, c.diffExit, logs)
			}
			out := filepath.Join(ws, rn.inputs["output-dir"])
			if got := r.action["output-dir"]; got != out {
				t.Errorf("output-dir %q, want %q", got, out)
			}
			checkStepsAndUpload(t, r, ws, out, logs)
			checkOutputs(t, c, r, out, logs, haveJQ)
		})
	}
}

// checkStepsAndUpload: only the last step fails the action, after the
// summary and the upload; upload-artifact uploads the output folder.
func checkStepsAndUpload(t *testing.T, r *actionRun, ws, out, logs string) {
	t.Helper()
	for i, s := range r.steps {
		if s.skipped && s.step.If != "inputs.setup-go == 'true'" {
			t.Errorf("step %q skipped", s.step.Name)
		}
		if s.exit != 0 && i != len(r.steps)-1 {
			t.Errorf("step %q exited %d; only the last step fails the action\n%s", s.step.Name, s.exit, logs)
		}
	}
	// What upload-artifact would upload.
	uploaded := false
	for _, s := range r.steps {
		if s.uses && strings.HasPrefix(s.step.Uses, "actions/upload-artifact@") {
			uploaded = true
			if p := filepath.Join(ws, s.with["path"]); p != out {
				t.Errorf("uploads %s, want %s", p, out)
			}
			if s.with["name"] != "abicheck-results" {
				t.Errorf("artifact name %q", s.with["name"])
			}
		}
	}
	if !uploaded {
		t.Errorf("nothing uploaded\n%s", logs)
	}
}

// actionCase is one run of the action in TestActionRunsItsSteps.
type actionCase struct {
	name      string
	mutant    string // the PR's build is this mutant
	base      string // base-library; "" none, "base/..." a conforming build there
	outputDir string
	env       []string
	checkExit string
	diffExit  string
	failed    bool
	summary   []string // regexps the summary matches
	jqSummary []string // and those it matches when jq reads the JSON
	diffLog   string   // diff.log contains it
}

// checkOutputs: the reports the action writes, its step summary and its
// diff log.
func checkOutputs(t *testing.T, c actionCase, r *actionRun, out, logs string, haveJQ bool) {
	t.Helper()
	files := []string{"check.json", "check.junit.xml", "check.log", "check.baseline", "summary.md"}
	if c.diffExit == "0" || c.diffExit == "1" {
		files = append(files, "diff.json", "diff.junit.xml", "diff.log")
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%v\n%s", err, logs)
		}
	}
	for _, f := range []string{"check.json", "check.junit.xml"} {
		decodeFile(t, filepath.Join(out, f))
	}
	if c.diffExit == "0" || c.diffExit == "1" {
		decodeFile(t, filepath.Join(out, "diff.json"))
		decodeFile(t, filepath.Join(out, "diff.junit.xml"))
	} else if _, err := os.Stat(filepath.Join(out, "diff.json")); c.diffExit == "" && err == nil {
		t.Errorf("diff.json written without a base-library")
	}
	res := c.summary
	if haveJQ {
		res = append(res, c.jqSummary...)
	}
	for _, re := range res {
		if !regexp.MustCompile(re).MatchString(r.summary) {
			t.Errorf("the step summary does not match %s:\n%s", re, r.summary)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "summary.md")); err != nil || string(b) != r.summary {
		t.Errorf("summary.md differs from the step summary (%v):\n%s", err, b)
	}
	if c.diffLog != "" {
		b, _ := os.ReadFile(filepath.Join(out, "diff.log"))
		if !strings.Contains(string(b), c.diffLog) {
			t.Errorf("diff.log does not name %s:\n%s", c.diffLog, b)
		}
		if d := r.step(t, "diff"); !strings.Contains(d.log, "::error title=abicheck diff::base-library "+c.base+": no such file") {
			t.Errorf("the diff step does not annotate the missing base-library:\n%s", d.log)
		}
	}
}
