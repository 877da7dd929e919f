// Package model is the independent model of docs/contract.md:
// Step(state, call, answer) returns the state after the call and the
// findings it added, porcupine's model shape. A State is owned (advanced in
// place: the live runner's path copies nothing) or shared (copied by Step,
// never changed: a linearization search keeps every state it reached). The
// model stands on the standard library, abi and conformance/op alone, so it
// cannot see the code it judges; the engine (conformance) drives it and
// reads it through Context, Storage, Device and the like.
package model
