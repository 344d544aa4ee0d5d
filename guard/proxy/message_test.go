package proxy

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// TestParseMessageAllocations: the envelope of a tools/call and its params cost no
// allocation but the tool's name, read alone or with the message's check: member names
// and methods MCP spells on every message are not copied.
func TestParseMessageAllocations(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo"},"_meta":{"progressToken":1}}}`)
	if n := testing.AllocsPerRun(100, func() { parseMessage(msg) }); n != 0 {
		t.Errorf("parseMessage: %v allocations, want 0", n)
	}
	m, _ := parseMessage(msg)
	if n := testing.AllocsPerRun(100, func() { parseCallParams(m.params) }); n != 1 {
		t.Errorf("parseCallParams: %v allocations, want 1 (the name)", n)
	}
	if n := testing.AllocsPerRun(100, func() { checkedMessage(msg) }); n != 1 {
		t.Errorf("checkedMessage: %v allocations, want 1 (the name)", n)
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

// checkedSeeds are messages, and values that are not, whose every cut and byte replaced
// TestCheckedMessage reads, and FuzzCheckedMessage begins with.
var checkedSeeds = []string{
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo","days":[1,2.5e3,-0]},"_meta":{"progressToken":null}}}`,
	` { "id" : true , "method\u00e9\n" : "x\"y" , "params" : { "Name" : 1 , "task" : null , "name" : "a" } } `,
	`{"params":{"name":"a","name":"b","arguments":{},"arguments":[]},"params":{}}`,
	`{}`, `[]`, `[{"id":1}]`, `"text"`, `12`, `null`, `{"params":{}}`, `{"params":[]}`, `{"params":"x"}`,
}

// readsAsChecked reports how checkedMessage's reading of b differs from jsontext.Valid,
// parseMessage and parseCallParams; "" when it does not.
func readsAsChecked(b []byte) string {
	got, object, valid := checkedMessage(b)
	if wantValid := jsontext.Valid(b); valid != wantValid {
		return fmt.Sprintf("%q: valid %v, jsontext.Valid %v", b, valid, wantValid)
	}
	if !valid {
		return ""
	}
	want, wantObject := parseMessage(b)
	read := got
	read.call, read.called, read.calls = callParams{}, false, false
	if object != wantObject || !reflect.DeepEqual(read, want) {
		return fmt.Sprintf("%q: object %v, read %+v; parseMessage reads %v, %+v", b, object, read, wantObject, want)
	}
	gotCall, gotCalls := paramsOf(&got)
	wantCall, wantCalls := parseCallParams(want.params)
	if gotCalls != wantCalls || !reflect.DeepEqual(gotCall, wantCall) {
		return fmt.Sprintf("%q: params %+v, %v; parseCallParams reads %+v, %v", b, gotCall, gotCalls, wantCall, wantCalls)
	}
	return ""
}

// TestCheckedMessage: reading a message not known to be valid, checkedMessage finds it
// valid exactly when jsontext.Valid does, and reads it as parseMessage reads it, its params
// as parseCallParams reads them, on messages cut short at every byte and with every byte
// replaced by one of JSON's.
func TestCheckedMessage(t *testing.T) {
	replacements := []byte(`{}[]:,"\ 0-.eE1tfn` + "\x00\x1f\x80\t\n")
	for _, s := range checkedSeeds {
		b := []byte(s)
		for n := 0; n <= len(b); n++ {
			if why := readsAsChecked(b[:n]); why != "" {
				t.Fatal(why)
			}
		}
		for i := range b {
			for _, c := range replacements {
				m := bytes.Clone(b)
				m[i] = c
				if why := readsAsChecked(m); why != "" {
					t.Fatal(why)
				}
			}
		}
	}
}

// TestCheckedMessageLarge: megabyte messages, of many members, deep or naming a method
// over and over, read as TestCheckedMessage wants, and cut short one byte before their end.
func TestCheckedMessageLarge(t *testing.T) {
	many := strings.Repeat(`"k":1,`, 1<<17)
	deep := strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20)
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + many + `"name":"t","arguments":{` + many + `"a":1}}}`,
		`{"id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":` + deep + `}}}`,
		`{"id":1,"params":` + deep + `}`,
		`{` + strings.Repeat(`"METHOD":"x",`, 1<<16) + `"method":"tools/call"}`,
	} {
		for _, b := range [][]byte{[]byte(s), []byte(s[:len(s)-1])} {
			if why := readsAsChecked(b); why != "" {
				t.Fatal(why[:min(len(why), 300)])
			}
		}
	}
}

// FuzzCheckedMessage: checkedMessage reads any bytes as TestCheckedMessage wants.
func FuzzCheckedMessage(f *testing.F) {
	for _, s := range checkedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if why := readsAsChecked(b); why != "" {
			t.Fatal(why)
		}
	})
}

// TestIDKey: ids servers read alike share a key (a number by its integer, a string by its
// decoded text), a string and a number of the same digits do not, and a key is made
// after a tag without an allocation.
func TestIDKey(t *testing.T) {
	for id, want := range map[string]string{
		`1`: `1`, `-3`: `-3`, `1.0`: `1`, `1e0`: `1`, `-2E1`: `-20`, " 7 ": `7`, `0`: `0`, `-0`: `0`,
		`1.5`: `1.5`, `9007199254740993`: `9007199254740993`, `-1.0e2`: `-100`,
		`"1"`: `"1`, `"a"`: `"a`, `"\u0061b"`: `"ab`, `"\n"`: "\"\n", `"é"`: `"é`, `"\ud800"`: "\"\uFFFD", `""`: `"`,
	} {
		if got := idKey([]byte(id)); got != want {
			t.Errorf("idKey(%s) = %q, want %q", id, got, want)
		}
		if got := string(appendIDKey([]byte("\x00tag\x00"), []byte(id))); got != "\x00tag\x00"+want {
			t.Errorf("appendIDKey(tag, %s) = %q, want the tag and %q", id, got, want)
		}
	}
	mb := strings.Repeat("7", 1<<20) // megabyte ids: a string, escaped, and a number
	for id, want := range map[string]string{`"` + strings.Repeat(`\u0061`, 1<<20) + `"`: `"` + strings.Repeat("a", 1<<20), mb: mb} {
		if got := idKey([]byte(id)); got != want {
			t.Errorf("idKey of %d bytes: %d bytes, %.20q..., want %d bytes", len(id), len(got), got, len(want))
		}
	}
	var room [64]byte
	id := []byte(`"req-0f9c2d4e"`)
	if n := testing.AllocsPerRun(100, func() { appendIDKey(append(room[:0], "\x0012\x00"...), id) }); n != 0 {
		t.Errorf("appendIDKey: %v allocations, want 0", n)
	}
}
