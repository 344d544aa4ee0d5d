package guard

import "testing"

// TestBeginTimesAnUncheckedCall: a call begun and never checked (a proxy's call of a tool
// the server does not list) ends once; without observers, Begin starts no clock.
func TestBeginTimesAnUncheckedCall(t *testing.T) {
	var ends []CallEnd
	g := New(WithCallEnd(func(e CallEnd) { ends = append(ends, e) }))
	call := Call{Tool: "_unknown", ProtocolVersion: "2025-06-18"}
	g.Begin(&call)
	g.Ended(&call, true)
	if len(ends) != 1 || ends[0].Tool != "_unknown" || !ends[0].IsError || ends[0].ProtocolVersion != "2025-06-18" || ends[0].Duration < 0 {
		t.Fatalf("ends %+v; want one of _unknown, an error", ends)
	}
	quiet := New()
	call = Call{Tool: "t"}
	quiet.Begin(&call)
	if call.start != 0 {
		t.Errorf("Begin started a clock without observers")
	}
}
