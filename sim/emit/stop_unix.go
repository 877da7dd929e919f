//go:build unix

package emit

import (
	"os/exec"
	"syscall"
)

// stopGently makes a cancelled compiler end by SIGTERM, not a kill, and
// with it what it runs (cc1, as, ld: its process group of its own): gcc
// then removes its temporary files.
func stopGently(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}
