package gosdk

// go-sdk's typed tools, registered as raw tools so that the guard checks their arguments
// before go-sdk decodes them.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// typedHandler returns the tool as registered and the raw handler that runs h as
// mcp.AddTool would. When checked, the handler does not validate the arguments: the
// guard's Handler around it does that, before anything else. Otherwise, for a guard that
// only reports, it validates and decodes them exactly as go-sdk does.
//
// It mirrors the typed wrapper of go-sdk v1.8.0 (toolForErr in mcp/server.go). When
// checked, it differs deliberately, and decodes the arguments into In from the bytes the
// guard checked, the input schema's defaults written in (prepareArguments), where go-sdk
// decodes them from a map[string]any that has carried every number through a float64.
// The output is validated against the output schema either way.
//
// The server's SchemaCache is not consulted: its methods are unexported, so schemas are
// inferred afresh for each registration. The schemas produced are the same.
func typedHandler[In, Out any](t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], checked bool) (*mcp.Tool, mcp.ToolHandler, error) {
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
		} else if res := decodeAsGoSDK(req.Params.Arguments, inputResolved, &in); res != nil {
			return res, nil
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
		outJSON, err = validateOutput(outJSON, outputResolved)
		if err != nil {
			return nil, fmt.Errorf("validating tool output: %w", err)
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

// decodeAsGoSDK validates the arguments against the input schema and decodes them into
// *in exactly as go-sdk v1.8.0 does (applySchema in mcp/tool.go, then its internal
// json.Unmarshal): into a map[string]any, the schema's defaults applied, validated,
// marshalled again and decoded. It returns nil when *in is ready, else the error result
// go-sdk answers.
func decodeAsGoSDK[In any](args json.RawMessage, resolved *jsonschema.Resolved, in *In) *mcp.CallToolResult {
	input, err := applyInputSchema(args, resolved)
	if err != nil {
		return errorResult(fmt.Errorf("validating \"arguments\": %v", err))
	}
	if err := unmarshalAsGoSDK(input, in); err != nil {
		return errorResult(err)
	}
	return nil
}

// applyInputSchema is go-sdk's applySchema for input.
func applyInputSchema(data json.RawMessage, resolved *jsonschema.Resolved) (json.RawMessage, error) {
	v := make(map[string]any)
	if len(data) > 0 {
		if err := unmarshalAsGoSDK(data, &v); err != nil {
			return nil, fmt.Errorf("unmarshaling arguments: %w", err)
		}
	}
	var unmarshaled any = v
	if err := resolved.ApplyDefaults(&unmarshaled); err != nil {
		return nil, fmt.Errorf("applying schema defaults:\n%w", err)
	}
	if err := resolved.Validate(&unmarshaled); err != nil {
		return nil, err
	}
	out, err := json.Marshal(unmarshaled)
	if err != nil {
		return nil, fmt.Errorf("marshalling with defaults: %v", err)
	}
	return out, nil
}

// unmarshalAsGoSDK is go-sdk's internal json.Unmarshal: segmentio's decoder, matching
// struct field names case-sensitively. go-sdk also refuses text nested deeper than 1000
// levels; it has refused such a message already, and the defaults written in would have to
// be nested hundreds of levels deep themselves to make the arguments reach that.
func unmarshalAsGoSDK(data []byte, v any) error {
	dec := segjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// setSchema resolves the schema in *field, first inferring it from T when *field is nil,
// as go-sdk's setSchema does without a cache. A pointer T is inferred from its element
// type, and then zero is that element type's zero value. As in go-sdk's code (though not
// its doc comment), zero is returned for a pointer T even when the schema was provided.
func setSchema[T any](field *any) (resolved *jsonschema.Resolved, zero any, err error) {
	rt := reflect.TypeFor[T]()
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
		zero = reflect.Zero(rt).Interface()
	}

	var schema *jsonschema.Schema
	switch s := (*field).(type) {
	case nil:
		schema, err = jsonschema.ForType(rt, &jsonschema.ForOptions{})
		if err != nil {
			return nil, zero, err
		}
		*field = schema
	case *jsonschema.Schema:
		schema = s
	default:
		if err := remarshal(s, &schema); err != nil {
			return nil, nil, err
		}
	}
	if schema == nil {
		return nil, zero, fmt.Errorf("schema is nil for type %v", rt)
	}
	resolved, err = schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, zero, err
	}
	return resolved, zero, nil
}

// validateOutput applies the schema's defaults to the output and validates it, as
// go-sdk's applySchema does for output. Data that needed no defaults is returned as is.
func validateOutput(data json.RawMessage, resolved *jsonschema.Resolved) (json.RawMessage, error) {
	if resolved == nil {
		return data, nil
	}
	var v any
	if len(data) > 0 {
		if err := unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("unmarshaling output: %w", err)
		}
	}
	// A null output is coerced to {} under an object schema.
	_, isMap := v.(map[string]any)
	if !isMap && v == nil && resolved.Schema().Type == "object" {
		v, isMap = make(map[string]any), true
	}
	if isMap {
		if err := resolved.ApplyDefaults(&v); err != nil {
			return nil, fmt.Errorf("applying schema defaults:\n%w", err)
		}
	}
	if err := resolved.Validate(&v); err != nil {
		return nil, err
	}
	if !isMap {
		return data, nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshalling with defaults: %v", err)
	}
	return out, nil
}

// unmarshal decodes JSON as go-sdk's internal json package does: with segmentio's
// decoder, matching struct field names case-sensitively and ignoring unknown fields. It
// parses data in place, where go-sdk's decoder reads it through a fresh 32 KiB buffer;
// data is one JSON value, taken from a message already parsed whole. go-sdk also rejects
// nesting deeper than 1000 levels; it has already checked that on the whole message.
func unmarshal(data []byte, v any) error {
	_, err := segjson.Parse(data, v, segjson.DontMatchCaseInsensitiveStructFields)
	return err
}

// remarshal converts from to the type of *to through JSON.
func remarshal(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return unmarshal(data, to)
}

// errorResult is the tool-error result go-sdk returns for err.
func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// isObjectJSON reports whether data, after leading whitespace, is a JSON object.
func isObjectJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\n\r")
	return len(trimmed) > 0 && trimmed[0] == '{'
}
