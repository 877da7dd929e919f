package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/README.md lists every file of docs/ with a line saying what it is
// for, under "## What each file is for", and README.md links to it: a new
// document nobody can find fails here.
func TestDocsIndexListsEveryFile(t *testing.T) {
	root := repoRoot(t)
	index, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(index), "\n## What each file is for\n")
	if !ok {
		t.Fatal(`docs/README.md has no "## What each file is for" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	item := regexp.MustCompile("(?m)^- \\[`([^`]+)`\\]\\(([^)]+)\\): (\\S.*)$")
	listed := map[string]int{}
	for _, m := range item.FindAllStringSubmatch(section, -1) {
		if m[1] != m[2] {
			t.Errorf("docs/README.md: the entry of %s links to %s", m[1], m[2])
		}
		listed[m[1]]++
	}
	entries, err := os.ReadDir(filepath.Join(root, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, "_test.go") {
			continue
		}
		files++
		switch n := listed[name]; {
		case n == 0:
			t.Errorf("docs/README.md does not list docs/%s: add \"- [`%s`](%s): what it is for\" under \"What each file is for\"", name, name, name)
		case n > 1:
			t.Errorf("docs/README.md lists docs/%s %d times", name, n)
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("docs/README.md lists %s, which is no file of docs/", name)
	}
	if files < 10 {
		t.Errorf("found %d files in docs/", files)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "](docs/README.md)") {
		t.Error("README.md does not link to docs/README.md")
	}
}
