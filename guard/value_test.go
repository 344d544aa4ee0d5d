package guard

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateValueOrder(t *testing.T) {
	v, err := Compile([]byte(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}},"additionalProperties":{"type":"string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"a": 1.0, "z": 2.0, "m": 3.0, "b": true}
	want := "property 'z' must be string | property 'a' must be string | property 'b' must be string | property 'm' must be string"
	for i := 0; i < 5; i++ { // map order is random; the output must not be
		if got := strings.Join(Messages(v.ValidateValue(args), nil), " | "); got != want {
			t.Fatalf("got %q", got)
		}
	}
	if vs := v.ValidateValue(map[string]any{"z": json.Number("1e999999"), "a": "x"}); len(vs) != 1 || vs[0].Kind != KindType {
		t.Errorf("json.Number: %+v", vs)
	}
	type row struct {
		Z string `json:"z"`
	}
	if vs := v.ValidateValue(row{Z: "ok"}); vs != nil {
		t.Errorf("struct: %+v", vs)
	}
}
