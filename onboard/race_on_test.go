//go:build race

package onboard

const raceEnabled = true
