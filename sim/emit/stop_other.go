//go:build !unix

package emit

import "os/exec"

// stopGently leaves a cancelled compiler to exec's kill.
func stopGently(*exec.Cmd) {}
