package main

import "github.com/simabi/simabi/conformance/session"

// speedComparer times the hot paths of both builds (conformance/speed).
func speedComparer(oldOpt, newOpt *options) session.SpeedComparer { return nil }
