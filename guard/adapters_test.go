package guard

import (
	"errors"
	"log/slog"
	"testing"
)

// TestGuardTellsAdaptersItsOptions: what an adapter asks of the guard's options.
func TestGuardTellsAdaptersItsOptions(t *testing.T) {
	for _, c := range []struct {
		name                             string
		opts                             []Option
		observed, checksResults, reports bool
	}{
		{"none", nil, false, false, false},
		{"an observer", []Option{WithObserver(func(Event) {})}, true, false, false},
		{"a logger observes", []Option{WithLogger(slog.New(slog.DiscardHandler))}, true, false, false},
		{"output validation", []Option{WithOutputValidation()}, false, true, false},
		{"report-only", []Option{WithReportOnly()}, false, false, true},
	} {
		g := New(c.opts...)
		if g.Observed() != c.observed || g.ChecksResults() != c.checksResults || g.ReportsOnly() != c.reports {
			t.Errorf("%s: observed %v, checks results %v, reports only %v; want %v, %v, %v", c.name,
				g.Observed(), g.ChecksResults(), g.ReportsOnly(), c.observed, c.checksResults, c.reports)
		}
	}
}

// TestBindLookupCompiled: a key finds what it was bound to; Compiled compiles it once, or
// says why it does not compile, and an error the adapter met making the text is kept.
func TestBindLookupCompiled(t *testing.T) {
	g := New()
	if g.Lookup("weather") != nil {
		t.Fatal("an unbound key found a schema")
	}
	s := g.Bind("weather", nil, []byte(weatherSchema), nil)
	if g.Lookup("weather") != s {
		t.Fatal("the bound key does not find its schema")
	}
	v1, err1 := g.Compiled(s)
	v2, err2 := g.Compiled(s)
	if err1 != nil || err2 != nil || v1 == nil || v1 != v2 || g.CacheStats().Compiled != 1 {
		t.Errorf("Compiled twice: %v, %v, %d compilations; want one validator, compiled once", err1, err2, g.CacheStats().Compiled)
	}
	var se *SchemaError
	if _, err := g.Compiled(g.Bind("broken", nil, []byte(`{"type":"strnig"}`), nil)); !errors.As(err, &se) {
		t.Errorf("a broken schema compiled: %v, want a *SchemaError", err)
	}
	made := errors.New("no text")
	if _, err := g.Compiled(g.Bind("unmade", nil, nil, made)); !errors.Is(err, made) {
		t.Errorf("a schema whose text could not be made: %v, want %v", err, made)
	}
}

// TestUnusable: a call checked against Unusable is refused as one to a broken schema,
// and the observers are told the error given, or that there is no schema.
func TestUnusable(t *testing.T) {
	for _, given := range []error{errors.New("the tool vanished"), nil} {
		var events []Event
		g := New(WithObserver(func(e Event) { events = append(events, e) }))
		vd := g.Check(&Call{Tool: "t"}, Unusable(given), []byte(`{}`), nil)
		if !vd.Refused() || vd.Text() != brokenSchemaText {
			t.Errorf("Unusable(%v): %q, want the broken schema's refusal", given, vd.Text())
		}
		if len(events) != 1 || events[0].Outcome != SchemaBroken || events[0].Err == nil ||
			given != nil && !errors.Is(events[0].Err, given) {
			t.Errorf("Unusable(%v): events %+v, want one SchemaBroken with the error", given, events)
		}
	}
}

// TestCallCountersFoundOnce: a call finds its tool's counters once, for its arguments and
// its result.
func TestCallCountersFoundOnce(t *testing.T) {
	g := New()
	call := &Call{Tool: "t"}
	first := g.counters(call)
	if g.counters(call) != first || g.counters(&Call{Tool: "t"}) != first || g.counters(&Call{Tool: "u"}) == first {
		t.Error("a call's counters are not its tool's")
	}
}

func TestToolError(t *testing.T) {
	cause := &SchemaError{Location: "#/type", Reason: "bad"}
	for _, c := range []struct {
		e    *ToolError
		want string
	}{
		{&ToolError{Tool: "a", Schema: "inputSchema", Err: cause}, "tool a: " + cause.Error()},
		{&ToolError{Tool: "a", Schema: "outputSchema", Err: cause}, "tool a: outputSchema: " + cause.Error()},
	} {
		var se *SchemaError
		if c.e.Error() != c.want || !errors.As(c.e, &se) || se != cause {
			t.Errorf("%+v: %q, want %q and the cause unwrapped", c.e, c.e.Error(), c.want)
		}
	}
}
