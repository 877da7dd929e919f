package osthread

import (
	"os"
	"strconv"
)

// alive reports whether thread tid of this process still exists: a thread
// that exited leaves /proc/self/task once the kernel reaped it.
func alive(tid int) bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid))
	return !os.IsNotExist(err)
}
