// Package trace checks a recorded session offline: every call judged by
// the model in the order the calls began, or, where calls of several
// threads overlap, in an order porcupine finds that keeps every call's
// interval and satisfies the model; and it turns a trace into the script
// that replays its consumer's side on any runtime (Ops, CompareReplay).
package trace
