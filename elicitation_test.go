package mcpvalidate

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// answering is a client session that answers every elicitation with answer.
type answering struct{ answer mcp.ElicitationResult }

func (a *answering) Initialize()       {}
func (a *answering) Initialized() bool { return true }
func (a *answering) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return make(chan mcp.JSONRPCNotification, 1)
}
func (a *answering) SessionID() string { return "s" }
func (a *answering) RequestElicitation(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &a.answer, nil
}

// TestRequestElicitation: a server's own elicitation gets the content the client accepts
// with only when it holds to the requestedSchema; else the error mcpvalidate proxy gives a
// server, in the same words.
func TestRequestElicitation(t *testing.T) {
	g := New()
	srv := server.NewMCPServer("s", "1")
	request := mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: "Your age?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"age": map[string]any{"type": "integer", "minimum": 0}}, "required": []any{"age"}}}}
	for _, c := range []struct {
		name    string
		action  mcp.ElicitationResponseAction
		content any
		err     string
	}{
		{"valid", mcp.ElicitationResponseActionAccept, map[string]any{"age": 42}, ""},
		{"a string for an integer", mcp.ElicitationResponseActionAccept, map[string]any{"age": "old"}, "Invalid elicitation response: property 'age' must be integer"},
		{"no content", mcp.ElicitationResponseActionAccept, nil, "Invalid elicitation response: missing required property 'age'"},
		{"declined", mcp.ElicitationResponseActionDecline, nil, ""},
	} {
		session := &answering{answer: mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: c.action, Content: c.content}}}
		res, err := g.RequestElicitation(srv.WithContext(context.Background(), session), srv, request)
		var refused *guard.ElicitationError
		switch {
		case c.err == "" && (err != nil || res == nil || res.Action != c.action):
			t.Errorf("%s: %v, %v; want the answer", c.name, res, err)
		case c.err != "" && (res != nil || !errors.As(err, &refused) || err.Error() != c.err):
			t.Errorf("%s: %v, %v; want %q", c.name, res, err, c.err)
		}
	}
}
