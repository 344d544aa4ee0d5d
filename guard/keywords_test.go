package guard

import (
	"strings"
	"testing"
)

// TestDraft04: the subset reads draft-04's own forms: id, boolean exclusiveMaximum and
// exclusiveMinimum, and no const, contains or propertyNames.
func TestDraft04(t *testing.T) {
	v, err := Compile([]byte(`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{
		"n":{"maximum":3,"exclusiveMaximum":true},"m":{"minimum":1,"exclusiveMinimum":false},
		"c":{"const":1,"propertyNames":{"maxLength":1}},"r":{"$ref":"#s"}},"definitions":{"s":{"id":"#s","type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.full != nil {
		t.Fatal("the full engine is in charge")
	}
	for args, want := range map[string]string{
		`{"n":3}`:          "property 'n' must be less than 3",
		`{"n":2.5,"m":1}`:  "",
		`{"m":0.5}`:        "property 'm' must be at least 1",
		`{"c":{"long":2}}`: "",
		`{"r":1}`:          "property 'r' must be string",
	} {
		if got := strings.Join(Messages(v.Validate([]byte(args)), nil), " | "); got != want {
			t.Errorf("%s: got %q, want %q", args, got, want)
		}
	}
}
