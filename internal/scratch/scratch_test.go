package scratch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Cleanup undoes what is held, newest first (a process before the
// directory it works in), skips what was released, and refuses every Hold
// after it.
func TestCleanup_undoesNewestFirstAndRefusesAfter(t *testing.T) {
	var reg Registry
	var order []string
	hold := func(name string) func() {
		release, err := reg.Hold(nil, func() { order = append(order, name) })
		if err != nil {
			t.Fatalf("Hold(%s): %v", name, err)
		}
		return release
	}
	hold("dir")
	releasedChild := hold("released child")
	hold("child")
	releasedChild()
	if got := reg.Held(); got != 2 {
		t.Errorf("Held() = %d, want 2", got)
	}
	reg.Cleanup()
	if diff := cmp.Diff([]string{"child", "dir"}, order); diff != "" {
		t.Errorf("undo order (-want +got):\n%s", diff)
	}
	made := false
	if _, err := reg.Hold(func() error { made = true; return nil }, func() {}); !errors.Is(err, ErrEnding) || made {
		t.Errorf("Hold after Cleanup: err %v, made %v; want ErrEnding and nothing made", err, made)
	}
	reg.Cleanup() // a second call does nothing more
	if len(order) != 2 || reg.Held() != 0 {
		t.Errorf("after a second Cleanup: undone %v, held %d", order, reg.Held())
	}
}

// A failed create registers nothing.
func TestHold_failedCreateHoldsNothing(t *testing.T) {
	var reg Registry
	boom := errors.New("boom")
	if _, err := reg.Hold(func() error { return boom }, func() { t.Error("undo of a failed create ran") }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if reg.Held() != 0 {
		t.Errorf("Held() = %d, want 0", reg.Held())
	}
	reg.Cleanup()
}

// MkdirTemp's and CreateTemp's files go at Cleanup with their contents;
// a released directory stays.
func TestMkdirTempAndCreateTemp_removedAtCleanup(t *testing.T) {
	var reg Registry
	parent := t.TempDir()
	dir, _, err := reg.MkdirTemp(parent, "abicheck-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "copy.so"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept, release, err := reg.MkdirTemp(parent, "kept-")
	if err != nil {
		t.Fatal(err)
	}
	release()
	f, _, err := reg.CreateTemp(parent, ".copy-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	reg.Cleanup()
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{filepath.Base(kept)}, names); diff != "" {
		t.Errorf("left in %s (-want +got):\n%s", parent, diff)
	}
}

// CopyFile replaces dst with src's bytes and permissions and leaves no
// temporary file beside it; a missing src leaves dst as it was.
func TestCopyFile_replacesWholeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("new bytes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CopyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	st, _ := os.Stat(dst)
	if string(got) != "new bytes" || st.Mode().Perm() != 0o755 {
		t.Errorf("dst = %q mode %v, want %q mode 0755", got, st.Mode().Perm(), "new bytes")
	}
	if err := CopyFile(filepath.Join(dir, "missing"), dst); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("copy of a missing file: %v, want ErrNotExist", err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "new bytes" {
		t.Errorf("a failed copy changed dst to %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the directory holds %d entries, want src and dst only: %v", len(entries), entries)
	}
}
