package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A long document opens with a table of contents made from its headings,
// so that it can be read by jumping: the block between the markers below is
// contents() of the file, and a file of more than contentsOver lines (not
// counting the block) must have one before its first "## " heading.
// SIMABI_UPDATE_DOCS=1 go test ./tests -run TestDocsContents rewrites the
// blocks (and adds a missing one after the document's first paragraph).

const (
	contentsBegin = "<!-- contents: generated from the headings; SIMABI_UPDATE_DOCS=1 go test ./tests -run TestDocsContents -->"
	contentsEnd   = "<!-- end of contents -->"
	contentsOver  = 300
)

// contents is the table of contents of a Markdown text: every "## " heading
// as a list item, and the "### " headings under it nested below, or on its
// line when each is one word (the rule IDs of contract.md). The links are
// in-file anchors.
func contents(text string) string {
	var b strings.Builder
	b.WriteString("**Contents**\n\n")
	hs := headings(text)
	for i := 0; i < len(hs); i++ {
		if hs[i].level != 2 {
			continue
		}
		j := i + 1
		for j < len(hs) && hs[j].level > 2 {
			j++
		}
		var subs []heading
		for _, h := range hs[i+1 : j] {
			if h.level == 3 {
				subs = append(subs, h)
			}
		}
		b.WriteString("- " + contentsLink(hs[i]))
		if oneWordEach(subs) {
			for k, h := range subs {
				b.WriteString(map[bool]string{true: ": ", false: ", "}[k == 0] + contentsLink(h))
			}
			b.WriteByte('\n')
		} else {
			b.WriteByte('\n')
			for _, h := range subs {
				b.WriteString("  - " + contentsLink(h) + "\n")
			}
		}
		i = j - 1
	}
	return b.String()
}

func oneWordEach(hs []heading) bool {
	for _, h := range hs {
		if strings.ContainsRune(h.text, ' ') {
			return false
		}
	}
	return true
}

// contentsLink links a heading; its brackets are escaped, so that a heading
// like "Streams [E-LAUNCH-ASYNC, D-3]" stays one link.
func contentsLink(h heading) string {
	text := strings.NewReplacer(`[`, `\[`, `]`, `\]`).Replace(h.text)
	return fmt.Sprintf("[%s](#%s)", text, h.anchor)
}

// contentsBlock finds the block in text: its start and end (past the end
// marker's line), or -1, -1 when there is none.
func contentsBlock(text string) (int, int) {
	i := strings.Index(text, contentsBegin+"\n")
	if i < 0 {
		return -1, -1
	}
	j := strings.Index(text[i:], contentsEnd+"\n")
	if j < 0 {
		return i, -1
	}
	return i, i + j + len(contentsEnd) + 1
}

// withContents is text with its block made anew, or added after the first
// paragraph under the title when it has none.
func withContents(text string) string {
	block := contentsBegin + "\n" + contents(text) + contentsEnd + "\n"
	if i, j := contentsBlock(text); i >= 0 && j >= 0 {
		return text[:i] + block + text[j:]
	}
	// After the title line, its blank line and the paragraph that follows.
	at := strings.Index(text, "\n\n") + 2
	end := strings.Index(text[at:], "\n\n")
	if at < 2 || end < 0 {
		return text + "\n" + block
	}
	at += end + 2
	return text[:at] + block + "\n" + text[at:]
}

// The documents: README.md and docs/*.md.
func documents(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

func TestDocsContentsAreTheHeadings(t *testing.T) {
	update := os.Getenv("SIMABI_UPDATE_DOCS") != ""
	long := 0
	for _, f := range documents(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		rel, _ := filepath.Rel(repoRoot(t), f)
		i, j := contentsBlock(text)
		if i >= 0 && j < 0 {
			t.Errorf("%s: %q without %q", rel, contentsBegin, contentsEnd)
			continue
		}
		lines := strings.Count(text, "\n")
		if i >= 0 {
			lines -= strings.Count(text[i:j], "\n")
		}
		if lines > contentsOver {
			long++
		}
		if i < 0 && lines <= contentsOver {
			continue
		}
		want := withContents(text)
		if want == text {
			if first := strings.Index(text, "\n## "); first >= 0 && first < i {
				t.Errorf("%s: the contents stand after the first \"## \" heading; move them to the top", rel)
			}
			continue
		}
		if update {
			if err := os.WriteFile(f, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: contents rewritten", rel)
			continue
		}
		if i < 0 {
			t.Errorf("%s: %d lines and no table of contents (SIMABI_UPDATE_DOCS=1 go test ./tests -run TestDocsContents adds one)", rel, lines)
			continue
		}
		t.Errorf("%s: the contents differ from the headings (SIMABI_UPDATE_DOCS=1 go test ./tests -run TestDocsContents rewrites them; -old +new):\n%s",
			rel, cmp.Diff(text[i:j], contentsBegin+"\n"+contents(text)+contentsEnd+"\n"))
	}
	if long == 0 {
		t.Errorf("no document is longer than %d lines: the test checks nothing", contentsOver)
	}
}

// The generator itself, on a text with the layouts it meets: rule IDs run on
// one line, longer headings nest, repeated headings get GitHub's -1, code
// blocks hold no headings, punctuation drops out of anchors.
func TestDocsContentsGenerator(t *testing.T) {
	text := "# Title\n\nIntro.\n\n## Usage\n\n### Flags\n\n### Exit status\n\n```\n## not a heading\n```\n\n" +
		"## S — status codes\n\n### S-1\n\n### S-2\n\n## What a change did: `abicheck diff`\n\n" +
		"## 4. Streams [E-LAUNCH-ASYNC, D-3]\n\n### Measured 2026-12-03\n\n### Measured 2026-12-03\n"
	want := "# Title\n\nIntro.\n\n" + contentsBegin + "\n**Contents**\n\n" +
		"- [Usage](#usage)\n  - [Flags](#flags)\n  - [Exit status](#exit-status)\n" +
		"- [S — status codes](#s--status-codes): [S-1](#s-1), [S-2](#s-2)\n" +
		"- [What a change did: `abicheck diff`](#what-a-change-did-abicheck-diff)\n" +
		"- [4. Streams \\[E-LAUNCH-ASYNC, D-3\\]](#4-streams-e-launch-async-d-3)\n" +
		"  - [Measured 2026-12-03](#measured-2026-12-03)\n  - [Measured 2026-12-03](#measured-2026-12-03-1)\n" +
		contentsEnd + "\n\n## Usage\n"
	got := withContents(text)
	if d := cmp.Diff(want, got[:len(want)]); d != "" {
		t.Errorf("withContents (-want +got):\n%s", d)
	}
	if again := withContents(got); again != got {
		t.Errorf("withContents of its own output changed it:\n%s", cmp.Diff(got, again))
	}
}
