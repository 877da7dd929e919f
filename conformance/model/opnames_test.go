package model

import "github.com/simabi/simabi/conformance/op"

// The op language's words the model's tests write their calls in.
var (
	Parse           = op.Parse
	MustParse       = op.MustParse
	MustParseScript = op.MustParseScript
)
