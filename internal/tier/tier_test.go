package tier

import "testing"

func TestTiers(t *testing.T) {
	for _, c := range []struct {
		value string
		full  bool
	}{
		{"full", true},
		{"", false},
		{"quick", false},
		{"FULL", false},
	} {
		t.Setenv(Env, c.value)
		if Enabled() != c.full {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Env, c.value, Enabled(), c.full)
		}
		ran := false
		skipped := false
		t.Run(c.value, func(t *testing.T) {
			defer func() { skipped = t.Skipped() }()
			Full(t)
			ran = true
		})
		if ran != c.full || skipped == c.full {
			t.Errorf("%s=%q: a full-tier test ran %v, skipped %v; want it to run only in the full tier", Env, c.value, ran, skipped)
		}
	}
}
