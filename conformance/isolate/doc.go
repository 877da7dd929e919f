// Package isolate runs the checker's cases in child processes, so that
// nothing a library under check does (a crash, a hang, an exit) can take the
// checker down. Pool is a conformance.Executor whose children re-execute the
// calling binary: that binary must call ChildMain first thing when the
// environment variable ChildEnv is set, to any value (abicheck's main does).
package isolate
