package proxy

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestPollable reopens a pipe, and only a pipe, so that it reads the same bytes without
// blocking the client's end of it.
func TestPollable(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Fd() // as os.Stdin is: blocking
	regular, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	for _, tc := range []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"pipe", r, runtime.GOOS == "linux"},
		{"regular file", regular, false},
		{"not a file", strings.NewReader("x"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reopened := pollable(tc.in)
			if reopened != tc.want || reopened == (got == tc.in) {
				t.Fatalf("reopened %v (the reader itself: %v), want %v", reopened, got == tc.in, tc.want)
			}
			if !reopened {
				return
			}
			defer got.(*os.File).Close()
			go func() {
				w.WriteString("a line\n")
				w.Close()
			}()
			if b, err := io.ReadAll(got); string(b) != "a line\n" || err != nil {
				t.Fatalf("read %q, %v", b, err)
			}
		})
	}
}

// TestStdioFraming: over stdio a message is one line of JSON. A line that is not one
// (a message split over lines, pretty-printed, two on a line, half of one) is answered
// with a parse error and never reaches the server, whose JSON stream decoder would put
// the pieces together; a blank line is skipped; a line of JSON that is not an object or
// a batch is an invalid request.
func TestStdioFraming(t *testing.T) {
	const parseError = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not one JSON message; over stdio each message is a line of its own, so it was not sent on"}}`
	const invalidRequest = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the message is JSON, but not a message or a batch, so it was not sent on"}}`
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	pretty := []string{"{", `  "jsonrpc": "2.0",`, `  "id": 5,`, `  "method": "tools/call",`, `  "params": {"name": "weather", "arguments": {}}`, "}"}
	for _, tc := range []struct {
		name   string
		lines  []string
		answer string // to each line: parseError, invalidRequest, or "" for none
	}{
		{"pretty-printed", pretty, parseError},
		{"split in two", []string{call[:40], call[40:]}, parseError},
		{"split, each half without a call", []string{`{"jsonrpc":"2.0","id":5,"method":"tools/`, `call","params":{"name":"weather","arguments":{}}}`}, parseError},
		{"two on a line", []string{call + call}, parseError},
		{"two on a line, with a space", []string{`{"jsonrpc":"2.0","method":"x"} {"jsonrpc":"2.0","method":"y"}`}, parseError},
		{"not JSON", []string{"not json"}, parseError},
		{"a lenient parser's JSON", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list",}`}, parseError},
		{"a string", []string{`"tools/call"`}, invalidRequest},
		{"a number", []string{`5`}, invalidRequest},
		// Python's, Java's and .NET's line readers end a line at a lone CR, too.
		{"a call between lone CRs", []string{`{"x":` + "\r" + call + "\r}"}, parseError},
		{"two split by a lone CR", []string{`{"jsonrpc":"2.0","method":"x"}` + "\r" + call}, parseError},
		{"a lone CR before the line end", []string{call + "\r\r"}, parseError},
		{"invalid UTF-8", []string{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"weather","arguments":{"location":"` + "\xff" + `"}}}`}, parseError},
		{"a byte order mark", []string{"\xef\xbb\xbf" + call}, parseError},
		{"a NUL byte", []string{call + "\x00"}, parseError},
		{"blank lines", []string{"", "  \t", "\r"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			h.listed()
			for _, l := range tc.lines {
				h.client(l)
				if tc.answer == "" {
					continue
				}
				if got := h.clientGets(); got != tc.answer {
					t.Fatalf("%q: the client got\n%s\nwant\n%s", l, got, tc.answer)
				}
			}
			// What reaches the server next is the next message: nothing came before it.
			h.clientPasses(`{"jsonrpc":"2.0","id":"next","method":"ping"}`)
		})
	}
}

// TestStdioListChangedUnreadable: a server line the proxy cannot read as one message
// may hold a list_changed that a client reading a stream of JSON values hears, and a
// method in another case is one Go's encoding/json reads: the proxy lists the tools
// again before the next call.
func TestStdioListChangedUnreadable(t *testing.T) {
	for _, lines := range [][]string{
		{`{"jsonrpc":"2.0",`, `"method":"notifications/tools/list_changed"}`},
		{`{"jsonrpc":"2.0","method":"notifications/tools/list\u005fchanged"}` + "\r" + `{}`},
		{`{"jsonrpc":"2.0","Method":"notifications/tools/list_changed"}`},
		{`{"jsonrpc":"2.0","method":"x","METHOD":"notifications/tools/list_changed"}`},
	} {
		h := newHarness(t, Options{})
		h.listed()
		for _, l := range lines {
			h.serverPasses(l)
		}
		h.client(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
		h.ownListAnswered(toolsList)
		h.serverGets()
	}
}

// TestStdioListChangedOverlong: a server's notification over the limit, dropped, may be
// a list_changed: the proxy lists the tools again before the next call.
func TestStdioListChangedOverlong(t *testing.T) {
	h := newHarness(t, Options{MaxMessage: 4 << 10})
	h.listed()
	pad := strings.Repeat("x", 8<<10)
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"pad":"` + pad + `"}}`,
		`{"jsonrpc":"2.0","Method":"notifications/tools/list_changed","params":{"pad":"` + pad + `"}}`,
	} {
		h.server(line)
		// The server's lines are read in order: once the client has the next one, the
		// proxy has read the one over the limit.
		h.serverPasses(`{"jsonrpc":"2.0","method":"notifications/marker"}`)
		h.client(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
		h.ownListAnswered(toolsList)
		h.serverGets()
		h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	}
}

// osPipe returns an operating system's pipe, buffered as a command's stdin and stdout are.
func osPipe(t *testing.T) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestListToolsStdio: the stdio lister speaks as a client: it initializes, answers the
// server's own request with an error, and follows the pages to the last.
func TestListToolsStdio(t *testing.T) {
	toServer, serverReads := osPipe(t)
	serverWrites, fromServer := osPipe(t)
	got := make(chan string, 8) // what the server read, but for its answers' requests
	go func() {
		defer fromServer.Close()
		in := bufio.NewReader(toServer)
		answer := func(id []byte, result string) {
			io.WriteString(fromServer, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+result+"}\n")
		}
		for {
			line, err := in.ReadBytes('\n')
			if err != nil {
				return
			}
			m, _ := parseMessage(line)
			got <- m.method + " " + string(m.params) + string(m.err)
			switch {
			case m.method == "initialize":
				answer(m.id, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)
			case m.method == "tools/list" && m.params == nil:
				io.WriteString(fromServer, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`+"\n")
				io.WriteString(fromServer, `{"jsonrpc":"2.0","id":7,"method":"roots/list"}`+"\n")
				answer(m.id, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`)
			case m.method == "tools/list":
				answer(m.id, `{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}`)
			}
		}
	}()
	list, err := ListToolsStdio(serverReads, serverWrites)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`; string(list) != want {
		t.Errorf("list %s, want %s", list, want)
	}
	var seen []string
	for range 5 {
		seen = append(seen, <-got)
	}
	want := []string{"initialize " + `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpvalidate","version":"1"}}`,
		"notifications/initialized ", "tools/list ", ` {"code":-32601,"message":"Method not found"}`, `tools/list {"cursor":"p2"}`}
	if !slices.Equal(seen, want) {
		t.Errorf("the server read\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// TestListToolsStdioServerEnds: a server that ends before it answers gives an error.
func TestListToolsStdioServerEnds(t *testing.T) {
	toServer, serverReads := io.Pipe()
	serverWrites, fromServer := io.Pipe()
	go func() {
		bufio.NewReader(toServer).ReadBytes('\n')
		fromServer.Close()
		io.Copy(io.Discard, toServer)
	}()
	if _, err := ListToolsStdio(serverReads, serverWrites); err == nil || !strings.Contains(err.Error(), "initialize") {
		t.Errorf("err %v, want one of initialize", err)
	}
}

// TestListToolsStdioChatty: a server that talks without answering ends the listing with
// an error, not a wait without end.
func TestListToolsStdioChatty(t *testing.T) {
	toServer, serverReads := osPipe(t)
	serverWrites, fromServer := osPipe(t)
	go func() {
		bufio.NewReader(toServer).ReadBytes('\n')
		line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}` + "\n")
		for range maxUnanswered {
			if _, err := fromServer.Write(line); err != nil {
				return
			}
		}
		io.Copy(io.Discard, toServer)
	}()
	if _, err := ListToolsStdio(serverReads, serverWrites); err == nil || !strings.Contains(err.Error(), "without answering") {
		t.Errorf("err %v, want the server's silence on the request", err)
	}
}

// TestStdioLastLineUnended: a server's last message with no line end before its output
// ends (it exited mid-write, or wrote it so) reaches the client ended, and the proxy's
// errors for the requests still in flight follow on lines of their own: every SDK's reader
// drops a line of two JSON values, so neither would arrive.
func TestStdioLastLineUnended(t *testing.T) {
	h := newHarness(t, Options{})
	h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if _, err := io.WriteString(h.serverSend, `{"jsonrpc":"2.0","id":1,"result":{}}`); err != nil {
		t.Fatal(err)
	}
	h.serverSend.Close()
	rest, _ := io.ReadAll(h.clientGot)
	lines := strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n")
	for _, line := range lines {
		if !json.Valid([]byte(line)) {
			t.Errorf("the client got a line that is not one message: %s", line)
		}
	}
	if len(lines) != 2 {
		t.Errorf("the client got %d lines: %q", len(lines), rest)
	}
}
