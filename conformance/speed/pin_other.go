//go:build !linux

package speed

import "os/exec"

func pinnedCPU() int { return -1 }

func startOn(cmd *exec.Cmd, cpu int) error { return cmd.Start() }
