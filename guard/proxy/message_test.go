package proxy

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// TestParseMessageAllocations: the envelope of a tools/call and its params cost no
// allocation but the tool's name: member names and methods MCP spells on every message
// are not copied.
func TestParseMessageAllocations(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo"},"_meta":{"progressToken":1}}}`)
	if n := testing.AllocsPerRun(100, func() { parseMessage(msg) }); n != 0 {
		t.Errorf("parseMessage: %v allocations, want 0", n)
	}
	m, _ := parseMessage(msg)
	if n := testing.AllocsPerRun(100, func() { parseCallParams(m.params) }); n != 1 {
		t.Errorf("parseCallParams: %v allocations, want 1 (the name)", n)
	}
}

// TestParseMessageMethods: a message with two methods, or one spelled in another case,
// is ambiguous and keeps every method; one with a single method keeps none.
func TestParseMessageMethods(t *testing.T) {
	for text, want := range map[string][]string{
		`{"method":"ping","id":1}`:                      nil,
		`{"method":"ping","method":"tools/call"}`:       {"ping", "tools/call"},
		`{"Method":"tools/call","method":"ping"}`:       {"tools/call", "ping"},
		`{"method":"","METHOD":"x","id":1,"params":{}}`: {"", "x"},
	} {
		m, ok := parseMessage([]byte(text))
		if !ok || m.ambiguous != (want != nil) || !reflect.DeepEqual(m.methods, want) {
			t.Errorf("%s: ambiguous %v, methods %q; want %q", text, m.ambiguous, m.methods, want)
		}
	}
}

// TestRoundTripAllocations: a valid tools/call and its answer through fromClient and
// fromServer cost at most 5 allocations: the request kept in flight, its key, its id and
// the tool's name among them.
func TestRoundTripAllocations(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := exchange{s: newSession("")}
	p.fromClient(x, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil)
	p.fromServer(x, []byte(`{"jsonrpc":"2.0","id":1,"result":`+toolsList+`}`))
	call := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo","days":3}}}`)
	answer := []byte(`{"jsonrpc":"2.0","id":12345,"result":{"content":[{"type":"text","text":"sunny"}]}}`)
	n := testing.AllocsPerRun(100, func() {
		if forward, _ := p.fromClient(x, call, nil); forward == nil {
			t.Fatal("the valid call was not sent on")
		}
		if out := p.fromServer(x, answer); string(out) != string(answer) {
			t.Fatalf("the answer became %s", out)
		}
	})
	if n > 5 {
		t.Errorf("%v allocations a round trip, want at most 5", n)
	}
}

// TestCheckedMembers: reading a message not known to be valid, checkedMembers finds it
// valid exactly when jsontext.Valid does, and an object's members as members reads them,
// on messages cut short at every byte and with every byte replaced by one of JSON's.
func TestCheckedMembers(t *testing.T) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo","days":[1,2.5e3,-0]},"_meta":{"progressToken":null}}}`,
		` { "a" : true , "b\u00e9\n" : false , "c" : "x\"y" } `,
		`{}`, `[]`, `[{"id":1}]`, `"text"`, `12`, `null`, `{"a":{}}`, `{"a":[]}`,
	}
	replacements := []byte(`{}[]:,"\ 0-.eE1tfn` + "\x00\x1f\x80\t\n")
	type member struct{ name, value string }
	check := func(b []byte) {
		var got, want []member
		object, valid := checkedMembers(b, func(name string, v []byte) { got = append(got, member{name, string(v)}) })
		if wantValid := jsontext.Valid(b); valid != wantValid {
			t.Fatalf("%q: valid %v, jsontext.Valid %v", b, valid, wantValid)
		}
		if !valid {
			return
		}
		wantObject := members(b, func(name string, v []byte) { want = append(want, member{name, string(v)}) })
		if object != wantObject || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: object %v, members %q; members reads %v, %q", b, object, got, wantObject, want)
		}
	}
	for _, s := range seeds {
		b := []byte(s)
		for n := 0; n <= len(b); n++ {
			check(b[:n])
		}
		for i := range b {
			for _, c := range replacements {
				m := bytes.Clone(b)
				m[i] = c
				check(m)
			}
		}
	}
}
