package guard

import (
	"reflect"
	"testing"
)

// TestOptionsSetTheirField: each option sets its own field of the configuration, and
// only that; values out of range, a nil formatter and a nil option leave the default.
func TestOptionsSetTheirField(t *testing.T) {
	defaults := newConfig(nil)
	custom := func(Violation) string { return "" }
	observer := func(Event) {}
	for _, c := range []struct {
		name string
		opt  Option
		want func(c *config) // the change to the defaults the option makes
	}{
		{"no option", nil, func(c *config) {}},
		{"WithFullEngine", WithFullEngine(), func(c *config) { c.fullEngine = compileFull }},
		{"WithFormatAssertion", WithFormatAssertion(), func(c *config) { c.assertFormat = true }},
		{"WithMaxDepth", WithMaxDepth(5), func(c *config) { c.maxDepth = 5 }},
		{"WithMaxDepth past the limit", WithMaxDepth(maxDepthLimit + 1), func(c *config) { c.maxDepth = maxDepthLimit }},
		{"WithMaxDepth(0)", WithMaxDepth(0), func(c *config) {}},
		{"WithMaxDepth(-1)", WithMaxDepth(-1), func(c *config) {}},
		{"WithMaxViolations", WithMaxViolations(3), func(c *config) { c.maxViolations = 3 }},
		{"WithMaxViolations(0)", WithMaxViolations(0), func(c *config) {}},
		{"WithFormatter(nil)", WithFormatter(nil), func(c *config) {}},
		{"WithHints", WithHints(), func(c *config) { c.hints = true }},
		{"WithViolationMeta", WithViolationMeta(), func(c *config) { c.meta = true }},
		{"WithCacheBudget", WithCacheBudget(1 << 10), func(c *config) { c.cacheBudget = 1 << 10 }},
		{"WithCacheBudget(0)", WithCacheBudget(0), func(c *config) {}},
		{"WithReportOnly", WithReportOnly(), func(c *config) { c.reportOnly = true }},
		{"WithOutputValidation", WithOutputValidation(), func(c *config) { c.outputs = true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := newConfig([]Option{c.opt})
			want := defaults
			c.want(&want)
			if got.formatter == nil || reflect.ValueOf(got.formatter).Pointer() != reflect.ValueOf(DefaultFormat).Pointer() {
				t.Error("the formatter is not DefaultFormat")
			}
			if (got.fullEngine == nil) != (want.fullEngine == nil) || got.fullEngine != nil && reflect.ValueOf(got.fullEngine).Pointer() != reflect.ValueOf(want.fullEngine).Pointer() {
				t.Error("the full engine is not as the option says")
			}
			got.formatter, want.formatter = nil, nil
			got.fullEngine, want.fullEngine = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config %+v, want %+v", got, want)
			}
		})
	}
	if c := newConfig([]Option{WithFormatter(custom)}); reflect.ValueOf(c.formatter).Pointer() != reflect.ValueOf(custom).Pointer() || !c.hints {
		t.Errorf("WithFormatter: the formatter set %v, hints found %v; want both", reflect.ValueOf(c.formatter).Pointer() == reflect.ValueOf(custom).Pointer(), c.hints)
	}
	if c := newConfig([]Option{WithObserver(observer), WithObserver(observer)}); len(c.observers) != 2 {
		t.Errorf("two observers: %d kept", len(c.observers))
	}
}

// TestOptionsDefaults: the defaults the options' documents state.
func TestOptionsDefaults(t *testing.T) {
	c := newConfig(nil)
	if c.maxDepth != 64 || c.maxViolations != 20 || c.cacheBudget != 64<<20 || len(c.observers) != 0 {
		t.Errorf("defaults: depth %d, violations %d, cache %d, %d observers; want 64, 20, 64 MiB, none",
			c.maxDepth, c.maxViolations, c.cacheBudget, len(c.observers))
	}
}

// TestLaterOptionsWin: of two options that set one field, the later one holds.
func TestLaterOptionsWin(t *testing.T) {
	for _, c := range []struct {
		opts []Option
		want int
	}{
		{[]Option{WithMaxViolations(3), WithMaxViolations(7)}, 7},
		{[]Option{WithMaxViolations(7), WithMaxViolations(3)}, 3},
		{[]Option{WithMaxViolations(7), WithMaxViolations(0)}, 7},
	} {
		if got := newConfig(c.opts).maxViolations; got != c.want {
			t.Errorf("%d options: maxViolations %d, want %d", len(c.opts), got, c.want)
		}
	}
}
