package proxy

import (
	"testing"
)

// TestInterceptAmbiguous: a message whose params appear twice, or in two cases, is not
// one the interceptor can read as one call.
func TestInterceptAmbiguous(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Interceptor([]byte(toolsList))
	if err != nil {
		t.Fatal(err)
	}
	bad := `{"name":"weather","arguments":{"days":99}}`
	good := `{"name":"weather","arguments":{"location":"x"}}`
	for _, msg := range []string{
		`{"Params":` + good + `,"params":` + bad + `}`,
		`{"params":` + good + `,"PARAMS":` + bad + `}`,
		`{"params":` + good + `,"params":` + bad + `}`,
		`{"Params":` + good + `,"Params":` + bad + `}`,
	} {
		if out, err := in.Intercept([]byte(msg)); err == nil && out == nil {
			t.Errorf("%s: let go on", msg)
		}
	}
}
