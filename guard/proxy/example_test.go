package proxy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
)

// A server on pipes, in front of which Serve checks calls: the call with valid arguments
// reaches it; the one without the required location is answered by the proxy.
func ExampleProxy_Serve() {
	p, err := proxy.New(proxy.Options{})
	if err != nil {
		log.Fatal(err)
	}
	toServer, serverIn := io.Pipe()
	serverOut, fromServer := io.Pipe()
	go fakeServer(toServer, fromServer)

	clientIn, client := io.Pipe()
	answers, clientOut := io.Pipe()
	go func() {
		if err := p.Serve(clientIn, clientOut, serverIn, serverOut); err != nil {
			log.Fatal(err)
		}
		clientOut.Close()
	}()
	got := bufio.NewReader(answers)
	for _, call := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"days":3}}}`,
	} {
		fmt.Fprintln(client, call)
		answer, _ := got.ReadString('\n')
		fmt.Print(answer)
	}
	client.Close()
	_, _ = io.Copy(io.Discard, got)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Sunny in Oslo"}]}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invalid arguments: missing required property 'location'"}],"isError":true,"_meta":{"com.github.mcpvalidate/violations":{"of":"arguments","violations":[{"pointer":"/location","kind":"required","keyword":"required","message":"missing required property 'location'"}],"notShown":0}}}}
}

// fakeServer answers tools/list with one tool, and tools/call of it, until its input ends.
func fakeServer(in io.Reader, out io.WriteCloser) {
	defer out.Close()
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var req struct {
			ID     json.RawMessage
			Method string
			Params struct {
				Arguments struct{ Location string }
			}
		}
		if json.Unmarshal(lines.Bytes(), &req) != nil {
			continue
		}
		switch req.Method {
		case "tools/list":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"weather","inputSchema":{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}},"required":["location"]}}]}}`+"\n", req.ID)
		case "tools/call":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"Sunny in %s"}]}}`+"\n", req.ID, req.Params.Arguments.Location)
		}
	}
}
