package tests

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var cfliteBuild = flag.Bool("cflite.build", false,
	"TestClusterFuzzLiteBuildsEveryTarget: run .clusterfuzzlite/build.sh for real (needs clang; minutes)")

// workflow is the part of a GitHub Actions workflow ClusterFuzzLite's use
// of it depends on.
type workflow struct {
	Name string `yaml:"name"`
	On   struct {
		PullRequest *struct {
			Paths []string `yaml:"paths"`
		} `yaml:"pull_request"`
		Schedule []struct {
			Cron string `yaml:"cron"`
		} `yaml:"schedule"`
	} `yaml:"on"`
	Jobs map[string]struct {
		Strategy struct {
			Matrix struct {
				Sanitizer []string `yaml:"sanitizer"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// ClusterFuzzLite's two GitHub workflows (docs/fuzzing.md): code-change
// fuzzing on pull requests and batch fuzzing on a schedule. Each parses,
// builds with ClusterFuzzLite's build_fuzzers in the language of
// .clusterfuzzlite/project.yaml and runs run_fuzzers in its mode, with
// sanitizers fuzz/libfuzzer builds; every path a pull request is filtered
// on names files that exist; and the fuzzers ClusterFuzzLite runs are those
// .clusterfuzzlite/build.sh builds: fuzz/libfuzzer's table, which
// TestFuzzTargetsAreAllBuilt holds equal to the module's fuzz targets.
func TestClusterFuzzLiteWorkflows(t *testing.T) {
	root := repoRoot(t)
	var project struct {
		Language string `yaml:"language"`
	}
	readYAML(t, filepath.Join(root, ".clusterfuzzlite", "project.yaml"), &project)
	if project.Language != "go" {
		t.Fatalf(".clusterfuzzlite/project.yaml: language %q, want go", project.Language)
	}
	files := repoFiles(t, root)
	for _, c := range []struct {
		file, mode string
	}{{"cflite_pr.yml", "code-change"}, {"cflite_batch.yml", "batch"}} {
		t.Run(c.file, func(t *testing.T) {
			var w workflow
			readYAML(t, filepath.Join(root, ".github", "workflows", c.file), &w)
			switch c.mode {
			case "code-change":
				if w.On.PullRequest == nil || len(w.On.PullRequest.Paths) == 0 {
					t.Fatal("not run on pull requests with a path filter")
				}
				for _, p := range w.On.PullRequest.Paths {
					if n := matching(p, files); n == 0 {
						t.Errorf("path filter %q names no file of the repository", p)
					}
				}
			case "batch":
				if len(w.On.Schedule) == 0 || len(strings.Fields(w.On.Schedule[0].Cron)) != 5 {
					t.Fatalf("no schedule with a five-field cron: %+v", w.On.Schedule)
				}
			}
			if len(w.Jobs) != 1 {
				t.Fatalf("%d jobs, want 1", len(w.Jobs))
			}
			for name, j := range w.Jobs {
				if len(j.Steps) != 2 {
					t.Fatalf("job %s: %d steps, want build_fuzzers then run_fuzzers", name, len(j.Steps))
				}
				build, run := j.Steps[0], j.Steps[1]
				if build.Uses != "google/clusterfuzzlite/actions/build_fuzzers@v1" || build.With["language"] != project.Language {
					t.Errorf("job %s: first step %s with language %q", name, build.Uses, build.With["language"])
				}
				if run.Uses != "google/clusterfuzzlite/actions/run_fuzzers@v1" || run.With["mode"] != c.mode {
					t.Errorf("job %s: second step %s in mode %q, want run_fuzzers in %s", name, run.Uses, run.With["mode"], c.mode)
				}
				if s, err := strconv.Atoi(run.With["fuzz-seconds"]); err != nil || s <= 0 {
					t.Errorf("job %s: fuzz-seconds %q", name, run.With["fuzz-seconds"])
				}
				if len(j.Strategy.Matrix.Sanitizer) == 0 {
					t.Errorf("job %s: no sanitizer", name)
				}
				for _, s := range j.Strategy.Matrix.Sanitizer {
					if !slices.Contains([]string{"address", "undefined", "memory"}, s) {
						t.Errorf("job %s: sanitizer %q is not one fuzz/libfuzzer builds", name, s)
					}
				}
			}
		})
	}
	script, err := os.ReadFile(filepath.Join(root, ".clusterfuzzlite", "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^[^#]*\bfuzz/libfuzzer build\b`).Match(script) {
		t.Fatal(".clusterfuzzlite/build.sh does not run fuzz/libfuzzer build")
	}
}

// .clusterfuzzlite/build.sh, run as ClusterFuzzLite runs it (a copy of the
// repository in $SRC/simabi, build.sh in $SRC, $OUT and $WORK empty), builds
// every fuzzer of fuzz/libfuzzer's table with its seed corpus and options.
// Minutes of clang: only with -cflite.build.
func TestClusterFuzzLiteBuildsEveryTarget(t *testing.T) {
	if !*cfliteBuild {
		t.Skip("runs .clusterfuzzlite/build.sh for real only with -cflite.build")
	}
	root := repoRoot(t)
	src, out, work := t.TempDir(), t.TempDir(), t.TempDir()
	cp := exec.Command("sh", "-c", `mkdir -p "$1/simabi" && tar -C "$2" --exclude=./build --exclude=./bin --exclude=./.git -cf - . | tar -C "$1/simabi" -xf - && cp "$2/.clusterfuzzlite/build.sh" "$1/"`, "sh", src, root)
	if b, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("copying the repository: %v\n%s", err, b)
	}
	cmd := exec.Command("bash", filepath.Join(src, "build.sh"))
	cmd.Env = append(os.Environ(), "SRC="+src, "OUT="+out, "WORK="+work, "CC=clang", "CXX=clang++",
		"LIB_FUZZING_ENGINE=-fsanitize=fuzzer", "SANITIZER=address",
		"CFLAGS=-fsanitize=address -fsanitize=fuzzer-no-link", "CXXFLAGS=-fsanitize=address -fsanitize=fuzzer-no-link")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, b)
	}
	table, err := os.ReadFile(filepath.Join(root, "fuzz", "libfuzzer"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(fuzz_\w+)\s+\S+\s+Fuzz\w*\s+\d+\s+[01]\s*$`).FindAllSubmatch(table, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) == 0 {
		t.Fatal("no fuzzers in fuzz/libfuzzer's table")
	}
	for _, n := range names {
		for _, f := range []string{n, n + "_seed_corpus.zip", n + ".options"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("$OUT/%s: not built (%v)", f, err)
			}
		}
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// repoFiles lists the repository's files, relative to root, slash-separated.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "build" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// matching counts the files a GitHub path filter matches: '**' any
// characters, '*' any but '/'.
func matching(pattern string, files []string) int {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			re.WriteString(".*")
			i++
		case pattern[i] == '*':
			re.WriteString("[^/]*")
		default:
			re.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	re.WriteString("$")
	r := regexp.MustCompile(re.String())
	n := 0
	for _, f := range files {
		if r.MatchString(f) {
			n++
		}
	}
	return n
}
