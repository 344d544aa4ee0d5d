package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestDemoRunsAsScripted(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"✗ refused: Invalid arguments: property 'days' must be integer",
		"property 'filter.children[1].children[0].op' must be one of",
		"  all tools               9        6",
		`"of":"result","violations":[{"keyword":"enum","kind":"enum","message":"property 'structuredContent.status' must be one of ['open', 'shipped', 'delivered']","pointer":"/status"`,
		"get_order               2        0              1.00                  -               1",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
