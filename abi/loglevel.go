package abi

import (
	"fmt"
	"strconv"
	"strings"
)

// LogLevel is SimplerHostLogState.threshold: the lowest severity a runtime's
// host log keeps (docs/contract.md). Only the six named values are valid.
type LogLevel int32

// Log levels.
const (
	LogDebug  LogLevel = 10
	LogInfo   LogLevel = 20
	LogTiming LogLevel = 25 // upstream's default
	LogWarn   LogLevel = 30
	LogError  LogLevel = 40
	LogNull   LogLevel = 60 // silent
)

// DefaultLogLevel is the threshold a consumer binds unless told otherwise.
const DefaultLogLevel = LogTiming

// HostBindRefused is what simpler_host_log_bind_state returns for a state it
// refuses (docs/contract.md): -1, a plain load-time refusal, not a device-latched code.
const HostBindRefused Status = -1

var logLevelNames = []struct {
	l    LogLevel
	name string
}{{LogDebug, "debug"}, {LogInfo, "info"}, {LogTiming, "timing"}, {LogWarn, "warn"}, {LogError, "error"}, {LogNull, "null"}}

// LogLevels lists the six valid levels in increasing order.
func LogLevels() []LogLevel {
	out := make([]LogLevel, len(logLevelNames))
	for i, n := range logLevelNames {
		out[i] = n.l
	}
	return out
}

// Valid reports whether l is one of the six levels.
func (l LogLevel) Valid() bool {
	for _, n := range logLevelNames {
		if n.l == l {
			return true
		}
	}
	return false
}

func (l LogLevel) String() string {
	for _, n := range logLevelNames {
		if n.l == l {
			return n.name
		}
	}
	return "LogLevel(" + strconv.Itoa(int(l)) + ")"
}

// ParseLogLevel reads a level by name (debug, info, timing, warn, error,
// null; any case) or by value (10, 20, 25, 30, 40, 60).
func ParseLogLevel(s string) (LogLevel, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, n := range logLevelNames {
		if n.name == t {
			return n.l, nil
		}
	}
	if v, err := strconv.ParseInt(t, 10, 32); err == nil && LogLevel(v).Valid() {
		return LogLevel(v), nil
	}
	return 0, fmt.Errorf("unknown log level %q: want debug (10), info (20), timing (25), warn (30), error (40) or null (60)", s)
}
