package model

import ()

func init() {
	defineStep(KindHoldLaunch, stepDef{
		step2: func(m *Model, op Op, obs *Observation, call, second *CallObs) { m.holdLaunch(op, obs, call, second) },
	})
	defineStep(KindHoldPrepare, stepDef{
		step2: func(m *Model, op Op, obs *Observation, call, second *CallObs) { m.holdPrepare(op, obs, call, second) },
	})
	defineStep(KindRaceKInit, stepDef{
		step2: func(m *Model, op Op, obs *Observation, call, second *CallObs) { m.raceKInit(op, obs, call, second) },
	})
}
