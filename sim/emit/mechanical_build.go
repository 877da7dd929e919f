package emit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/simabi/simabi/internal/scratch"
)

// CompileError is a mechanical mutant the compiler refused (with emit's
// flags, -Werror among them): the mutant does not count.
type CompileError struct {
	ID  string
	Out string // the compiler's first error line
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("emit: mechanical mutant %s does not compile: %s", e.ID, e.Out)
}

// BuildMechanical builds m like a hand-written mutant (MutantCFlags, -O0),
// through the build cache. A mutant the compiler refuses returns a
// *CompileError, remembered in the cache too so that the next run does not
// compile it again.
func BuildMechanical(m MechanicalMutant, opt BuildOptions) (*Artifacts, error) {
	src, err := MechanicalSource(m)
	if err != nil {
		return nil, err
	}
	cc, err := resolveCompiler(opt.CC)
	if err != nil {
		return nil, err
	}
	cacheDir, err := opt.cacheDir()
	if err != nil {
		return nil, err
	}
	key := cacheKeyWith(src, cc, MutantCFlags)
	refused := filepath.Join(cacheDir, "refused-"+key)
	if b, err := os.ReadFile(refused); err == nil {
		return nil, &CompileError{ID: m.ID, Out: string(b)}
	}
	opt.runtimeFlags = MutantCFlags
	a, err := BuildSources(src, opt)
	if err == nil || errors.Is(err, ErrNoCompiler) {
		return a, err
	}
	// Did the runtime's compile fail, or something else? Compile it alone.
	dir, release, derr := scratch.MkdirTemp(cacheDir, ".mech-")
	if derr != nil {
		return nil, err
	}
	defer func() { os.RemoveAll(dir); release() }()
	if werr := os.WriteFile(filepath.Join(dir, RuntimeSrcName), []byte(src.Runtime), 0o644); werr != nil {
		return nil, err
	}
	cerr := runCC(dir, cc, MutantCFlags, "-c", "-o", "host_runtime.o", RuntimeSrcName)
	if cerr == nil {
		return nil, err // it compiles: the failure was elsewhere
	}
	ce := &CompileError{ID: m.ID, Out: firstCompilerError(cerr.Error())}
	_ = os.WriteFile(refused, []byte(ce.Out), 0o644)
	return nil, ce
}

// firstCompilerError is the first "error:" line of a compiler's output.
func firstCompilerError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "error:") {
			if i := strings.Index(l, RuntimeSrcName+":"); i >= 0 {
				l = l[i:]
			}
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
}
