package guard

import "testing"

// TestCheckCall: a valid call allocates nothing once its schema is compiled, and a tool
// whose schema changes is checked against the new one.
func TestCheckCall(t *testing.T) {
	g := New()
	strict := []byte(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`)
	loose := []byte(`{"type":"object"}`)
	args := []byte(`{"a":"x","b":1}`)
	if !g.CheckCall("t", strict, args).Refused() {
		t.Error("a member the schema refuses passed")
	}
	if g.CheckCall("t", loose, args).Refused() {
		t.Error("the tool's new schema was not the one checked")
	}
	valid := []byte(`{"a":"x"}`)
	if n := testing.AllocsPerRun(100, func() { g.CheckCall("t", loose, valid) }); n != 0 {
		t.Errorf("a valid call allocates %v times", n)
	}
}
