package core

import (
	"strings"
	"testing"
)

func TestGatewayFormat(t *testing.T) {
	v, _ := Compile([]byte(`{"type":"object","properties":{"customer":{"type":"object","properties":{"zip":{"type":"string"}},"required":["id"]},"n":{"maximum":3}},"additionalProperties":false}`))
	vs := v.Validate([]byte(`{"customer":{"zip":1},"n":4,"x":0}`))
	got := strings.Join(Messages(vs, GatewayFormat), " | ")
	want := "Missing required parameter: `customer.id` | Invalid type for `customer.zip`: expected string | Invalid value for `n`: must be at most 3 | Unknown parameter: `x`"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	if got := GatewayFormat(notAnObject); got != "expected an object" {
		t.Errorf("root: %q", got)
	}
	v, _ = Compile([]byte(`{"properties":{"a.b":{"type":"integer"},"p":{"pattern":"^\\w+$"},"v":{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}}}`))
	got = strings.Join(Messages(v.Validate([]byte(`{"a.b":"x","p":"-","v":1}`)), GatewayFormat), " | ")
	want = "Invalid type for `\"a.b\"`: expected integer | Invalid value for `p`: must match the pattern '^\\w+$' | Invalid type for `v`: expected string or array of strings"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}
