package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
)

// The -html report in a real browser (issue #37): Debian's headless
// Chromium, driven through chromedp, loads the pages abicheck wrote and
// the test reads what they show.

// screenshotDirEnv names a directory the browser test saves its
// screenshots in, to keep them; by default they go to a test's temporary
// directory (the test logs their paths either way).
const screenshotDirEnv = "ABICHECK_SCREENSHOT_DIR"

// chromiumPath finds a Chromium, or skips the test saying why.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (chromium, chromium-browser, google-chrome): the -html browser test needs one (Debian: apt-get install chromium)")
	return ""
}

// browser starts a headless Chromium for the test, its profile fresh: the
// context to drive it with, and the outcome of its start. The background
// networking flags keep it from calling out to a network the machine may
// not have.
func browser(t *testing.T, exe string) (context.Context, <-chan error) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium makes its singleton socket's directory under TMPDIR
		// and leaves it: one per run was left in /tmp. Not t.TempDir():
		// a socket's path has at most 107 bytes, and t.TempDir's name under
		// make test's own TMPDIR made it 114.
		chromedp.Env("TMPDIR=" + shortTempDir(t)),
		chromedp.WindowSize(1280, 1400),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's sandbox refuses root
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }() // starts the browser, bound to ctx
	return ctx, started
}

// shortTempDir is a directory of the test's directly under $TMPDIR, with a
// short name, removed when the test ends.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// pageFacts are what a page shows that holds for every report: the links
// into the page whose target is missing, the attributes that point out of
// it, and what it fetched.
type pageFacts struct {
	Dangling  []string `json:"dangling"`
	Outside   []string `json:"outside"`
	Resources []string `json:"resources"`
}

const pageFactsJS = `({
	dangling: Array.from(document.querySelectorAll('a[href^="#"]'))
		.filter(a => !document.getElementById(decodeURIComponent(a.hash.slice(1)))).map(a => a.getAttribute('href')),
	outside: Array.from(document.querySelectorAll('[src],[href]'))
		.map(e => e.getAttribute('src') ?? e.getAttribute('href'))
		.filter(u => !u.startsWith('#') && !u.startsWith('data:')),
	resources: performance.getEntriesByType('resource').map(r => r.name).filter(n => !n.startsWith('data:')),
})`

// load opens a report and checks it is self-contained: every in-page link
// has its target, and nothing points out of the file or was fetched.
func load(t *testing.T, ctx context.Context, file string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("main"))); err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
	f, err := chromedp.Run(ctx, chromedp.Evaluate[pageFacts](pageFactsJS))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if diff := cmp.Diff(pageFacts{}, f, cmp.Transformer("empty", func(s []string) []string {
		if len(s) == 0 {
			return nil
		}
		return s
	})); diff != "" {
		t.Errorf("%s is not self-contained (-want +got):\n%s", filepath.Base(file), diff)
	}
}

// eval runs a JavaScript expression in the page loaded.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// writeReport runs abicheck to write an HTML report and checks it says so.
func writeReport(t *testing.T, page string, wantCode int, args ...string) {
	t.Helper()
	r := runCLI(t, nil, args...)
	if r.code != wantCode {
		t.Fatalf("abicheck %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), r.code, wantCode, r.stdout, r.stderr)
	}
	if want := "abicheck: wrote the HTML report to " + page + "\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("abicheck %s: stderr does not name the report (%q):\n%s", strings.Join(args, " "), want, r.stderr)
	}
	t.Logf("abicheck %s: %v", strings.Join(args, " "), r.elapsed.Round(time.Millisecond))
}

// saveScreenshot writes a PNG where screenshotDirEnv says, else in dir.
func saveScreenshot(t *testing.T, dir, name string, png []byte) {
	t.Helper()
	if d := os.Getenv(screenshotDirEnv); d != "" {
		dir = d
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// Issue #37: abicheck -html writes one page per run a browser shows: a
// check of sim:tmr (every runtime rule's verdict, each rule linked to its
// text from the contract, in the page), a recorded session with a broken
// E-SUP (the failure's repro script inline) and a diff of the two
// simulator profiles (the latency plots, drawn at their size).
func TestIssue37_HTMLReportInABrowser(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	check, tracePage, diffPage := filepath.Join(dir, "check.html"), filepath.Join(dir, "trace.html"), filepath.Join(dir, "diff.html")
	trace := filepath.Join(dir, "flagged.ops")
	if err := os.WriteFile(trace, []byte("# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n"+
		"@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 supported c0 -> 7\n@5-6 t0 dev=0 destroy c0 -> done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, started := browser(t, exe) // starting while the reports are made
	t.Run("reports", func(t *testing.T) {
		for _, r := range []struct {
			page string
			code int
			args []string
		}{
			{check, exitOK, []string{"-html", check, "-no-probes", "-sequences", "2", "-duration", "300ms", "sim:tmr"}},
			{tracePage, exitFindings, []string{"-check-trace", "-repro-dir", filepath.Join(dir, "repro"), "-html", tracePage, trace}},
			{diffPage, exitFindings, []string{"diff", "-html", diffPage, "-no-probes", "-no-shrink", "-sequences", "1", "-duration", "200ms",
				"-speed-budget", "300ms", "-repro-dir", filepath.Join(dir, "diff"), "sim:tmr", "sim:refusing"}},
		} {
			t.Run(filepath.Base(r.page), func(t *testing.T) {
				t.Parallel()
				writeReport(t, r.page, r.code, r.args...)
			})
		}
	})
	if t.Failed() {
		return
	}
	t0 := time.Now()
	if err := <-started; err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	checkPage(t, ctx, check, dir)
	tracePageShowsTheRepro(t, ctx, tracePage, filepath.Join(dir, "repro", "repro-E-SUP.ops"))
	diffPageShowsThePlots(t, ctx, diffPage, dir)
	t.Logf("the browser's part (after the reports): %v", time.Since(t0).Round(time.Millisecond))
}

// checkPage: a row per runtime rule with its verdict (sim:tmr passes every
// rule but those no check exercises, V-ARENA's kind, and U-1, whose checks
// unload a library's private copy), and a rule's link lands on its text,
// the text abicheck explain prints.
func checkPage(t *testing.T, ctx context.Context, page, dir string) {
	load(t, ctx, page)
	var want [][]string
	for _, r := range model.RuntimeRules() {
		if r == model.RHooks {
			continue
		}
		v := "pass"
		if _, skipped := model.NotChecked(r); skipped || r == model.RU1 {
			v = "skip"
		}
		want = append(want, []string{r.String(), v})
	}
	got := eval[[][]string](t, ctx, `Array.from(document.querySelectorAll('table.rules tr.rule-row')).map(r => [r.dataset.rule, r.cells[1].textContent])`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the rule table of sim:tmr (-want +got):\n%s", diff)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	saveScreenshot(t, dir, "abicheck-check.png", png)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr.rule-row[data-rule="E-FIN"] a`))); err != nil {
		t.Fatal(err)
	}
	text, err := catalogue.Explain("E-FIN")
	if err != nil {
		t.Fatal(err)
	}
	type landing struct {
		Hash string  `json:"hash"`
		Top  float64 `json:"top"`
		Text string  `json:"text"`
	}
	l := eval[landing](t, ctx, `({hash: location.hash, top: document.getElementById('rule-E-FIN').getBoundingClientRect().top,
		text: document.querySelector('#rule-E-FIN pre').textContent})`)
	if l.Hash != "#rule-E-FIN" || l.Top < -1 || l.Top > 1 || l.Text != text {
		t.Errorf("clicking E-FIN's link: at %q, its section's top at %v px; want #rule-E-FIN at the top of the window, showing abicheck explain E-FIN's text; it shows:\n%s",
			l.Hash, l.Top, l.Text)
	}
}

// tracePageShowsTheRepro: the failing rule's repro script, as -repro-dir
// wrote it, is on the page.
func tracePageShowsTheRepro(t *testing.T, ctx context.Context, page, reproFile string) {
	load(t, ctx, page)
	want, err := os.ReadFile(reproFile)
	if err != nil {
		t.Fatal(err)
	}
	got := eval[[]string](t, ctx, `[document.querySelector('tr.rule-row[data-rule="E-SUP"]').cells[1].textContent,
		document.querySelector('.failure[data-rule="E-SUP"] pre.repro').textContent]`)
	if diff := cmp.Diff([]string{"fail", string(want)}, got); diff != "" {
		t.Errorf("E-SUP's verdict and repro on the page (-want +got):\n%s", diff)
	}
	if ops := string(want)[strings.LastIndex(string(want), "\n#"):]; !strings.HasSuffix(ops, "\nsetdev 0\ncreate c0\nsupported c0\n") {
		t.Errorf("the repro of the flagged trace is not its three ops:\n%s", want)
	}
}

// diffPageShowsThePlots: sim:refusing skips the two kernel entries, so 7
// are timed, and both latency plots are drawn for them, 6 in wide and
// 1.6 in plus 0.45 in per entry high at 192 dpi (1152 × 912 px), shown
// 540 px wide: side by side in a window 1280 px wide.
func diffPageShowsThePlots(t *testing.T, ctx context.Context, page, dir string) {
	load(t, ctx, page)
	type shown struct {
		ID                string
		Complete          bool
		Natural, Rendered [2]float64
	}
	got := eval[[]shown](t, ctx, `Array.from(document.querySelectorAll('img.plot')).map(i => ({ID: i.id, Complete: i.complete,
		Natural: [i.naturalWidth, i.naturalHeight], Rendered: [i.getBoundingClientRect().width, i.getBoundingClientRect().height]}))`)
	want := []shown{
		{ID: "ratio-plot", Complete: true, Natural: [2]float64{1152, 912}, Rendered: [2]float64{540, 427.5}},
		{ID: "time-plot", Complete: true, Natural: [2]float64{1152, 912}, Rendered: [2]float64{540, 427.5}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the latency plots (-want +got):\n%s", diff)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('table.speed tbody tr').length`); n != 7 {
		t.Errorf("%d entries in the speed table, want 7", n)
	}
	if tops := eval[[]float64](t, ctx, `Array.from(document.querySelectorAll('img.plot')).map(i => i.getBoundingClientRect().top)`); len(tops) != 2 || tops[0] != tops[1] {
		t.Errorf("the plots' tops are at %v: want them side by side", tops)
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#speed")))
	if err != nil {
		t.Fatal(err)
	}
	saveScreenshot(t, dir, "abicheck-diff-speed.png", png)
}
