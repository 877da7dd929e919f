package main

import (
	"bytes"
	"time"

	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/conformance/speed"
)

// speedComparer times the hot-path entries of both builds, interleaved, and
// OLD against itself for the noise (conformance/speed).
func speedComparer(oldOpt, newOpt *options) session.SpeedComparer {
	build := func(t *session.Target, o *options) speed.Build {
		if session.IsSimSpec(t.Label) {
			return speed.Build{Label: t.Label, Sim: t.Label}
		}
		return speed.Build{Label: t.Label, Lib: isolate.Config{Lib: t.Label, Preloads: o.Preloads, ACL: o.ACL, Binaries: o.Bins,
			LogLevel: int32(o.LogLevel), Callable: o.Callable}}
	}
	return func(old, new *session.Target, budget time.Duration, progress func(done, total int, name string)) (any, int, string, error) {
		so := speed.Options{Budget: budget, Timeout: oldOpt.CaseTimeout, LoadTimeout: oldOpt.LoadTimeout, Progress: progress}
		rep, err := speed.Compare(build(old, oldOpt), build(new, newOpt), so)
		if err != nil {
			return nil, 0, "", err
		}
		var b bytes.Buffer
		rep.WriteText(&b)
		return rep, len(rep.Differences()), b.String(), nil
	}
}
