package gosdk

// go-sdk's typed tools, registered as raw tools so that the guard checks their arguments
// before go-sdk decodes them.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// typedHandler returns the tool as registered and the raw handler that runs h as
// mcp.AddTool would, for g's Handler to wrap. When g enforces, the handler does not
// validate the arguments: the guard's Handler around it does that, before anything else.
// Otherwise, for a guard that only reports, it validates and decodes them exactly as go-sdk
// does.
//
// It mirrors go-sdk's typed wrapper (toolForErr in mcp/server.go; gosdk_internals.go
// lists what is copied from go-sdk). When g enforces, it differs deliberately, and decodes
// the arguments into In from the bytes the guard checked, the input schema's defaults
// written in (prepareArguments), where go-sdk decodes them from a map[string]any that has
// carried every number through a float64. The output, its defaults written in, is
// validated against the output schema as go-sdk does; but under WithOutputValidation by
// the guard's Handler alone when g enforces, so that an output that does not match is
// withheld as a raw tool's result is. When g only reports, go-sdk's check of the output
// answers, and an output it refuses is handed to the guard too, as a *refusedOutput.
//
// The server's SchemaCache is not consulted: its methods are unexported, so schemas are
// inferred afresh for each registration. The schemas produced are the same.
func typedHandler[In, Out any](t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], g *guard.Guard) (*mcp.Tool, mcp.ToolHandler, error) {
	checked := !g.ReportsOnly()
	resultsChecked := g.ChecksResults()
	tt := *t

	// go-sdk gives an 'any' input the empty object schema.
	if reflect.TypeFor[In]() == reflect.TypeFor[any]() && tt.InputSchema == nil {
		tt.InputSchema = &jsonschema.Schema{Type: "object"}
	}
	inputResolved, _, err := setSchema[In](&tt.InputSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	inputDefaults, err := defaultsOf(inputResolved.Schema())
	if err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}

	// When Out is a pointer *T, elemZero is T's zero value, sent in place of a typed nil.
	var (
		outputResolved *jsonschema.Resolved
		elemZero       any
	)
	if tt.OutputSchema != nil || reflect.TypeFor[Out]() != reflect.TypeFor[any]() {
		outputResolved, elemZero, err = setSchema[Out](&tt.OutputSchema)
		if err != nil {
			return nil, nil, fmt.Errorf("output schema: %v", err)
		}
	}

	th := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if checked {
			input, err := prepareArguments(req.Params.Arguments, inputDefaults)
			if err != nil {
				return errorResult(fmt.Errorf("validating \"arguments\": %v", err)), nil
			}
			if err := unmarshal(input, &in); err != nil {
				return errorResult(err), nil
			}
		} else {
			args := req.Params.Arguments
			if inputDefaults != nil && isNull(args) {
				args = nil // {}: go-sdk would panic writing the defaults into the nil map null decodes to
			}
			if res := decodeAsGoSDK(args, inputResolved, &in); res != nil {
				return res, nil
			}
		}

		res, out, err := h(ctx, req, in)
		if err != nil {
			if wireErr, ok := err.(*jsonrpc.Error); ok {
				return nil, wireErr
			}
			return errorResult(err), nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}

		// Content and inputRequests are mutually exclusive on the wire.
		var outval any = out
		if res.InputRequests != nil {
			outval = nil
		} else if elemZero != nil {
			var zero Out
			if any(out) == any(zero) {
				outval = elemZero
			}
		}
		if outval == nil {
			return res, nil
		}
		outJSON, err := json.Marshal(outval)
		if err != nil {
			return nil, fmt.Errorf("marshaling output: %w", err)
		}
		outJSON, outValue, err := withOutputDefaults(outJSON, outputResolved)
		if err != nil {
			return nil, fmt.Errorf("validating tool output: %w", err)
		}
		// The guard checks only a success's output; go-sdk checks an error result's too, and
		// its check stands there, as everywhere when the guard checks no output.
		if outputResolved != nil && (!(checked && resultsChecked) || res.IsError) {
			if err := outputResolved.Validate(&outValue); err != nil {
				err = fmt.Errorf("validating tool output: %w", err)
				if resultsChecked {
					return nil, &refusedOutput{content: outJSON, err: err}
				}
				return nil, err
			}
		}
		res.StructuredContent = json.RawMessage(outJSON)
		// The text copy lets clients that ignore structuredContent read the output.
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(outJSON)}}
		} else if !isObjectJSON(outJSON) {
			res.Content = append(res.Content, &mcp.TextContent{Text: string(outJSON)})
		}
		return res, nil
	}
	return &tt, th, nil
}

// A refusedOutput is a typed tool's output, its defaults written in, that go-sdk's own
// check refused, with go-sdk's error: under WithReportOnly and WithOutputValidation, the
// guard's Handler reports what it finds in the output, and answers with the error.
type refusedOutput struct {
	content []byte
	err     error
}

func (o *refusedOutput) Error() string { return o.err.Error() }
