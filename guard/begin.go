package guard

// Begin starts the clock of call's operation, which [Guard.Ended] reports, when the guard
// has observers and the clock has not started yet. An adapter that receives a call before
// it can check it (a proxy that first asks the server for its tools) calls it on receipt;
// without it, the operation starts with the call's first check.
func (g *Guard) Begin(call *Call) {
	if call.start == 0 {
		call.start = g.startClock()
	}
}
