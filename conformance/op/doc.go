// Package op is the checker's op language: what a call to the runtime is
// (Kind, Op and the recipes of its arguments), its text form (Parse and
// String: one op a line, the form of scripts, repros and baselines), and
// its trace grammar (ParseTrace: a recorded session, in abi/tracevocab's
// words, read as ops with what the runtime answered). Every kind is one
// define in the ops_*.go file of its family; nothing here switches on the
// kind. It imports abi and abi/tracevocab only.
package op
