package gosdk

// go-sdk's own code for typed tools, copied where the adapter must answer as go-sdk does and
// go-sdk does not export it. The adapter reads no unexported field of go-sdk; it copies
// these unexported functions of go-sdk v1.8.0, the same in v1.7.0 but for internal/json's
// Unmarshal, which refuses text nested deeper than 1000 levels from v1.8.0:
//
//   - toolForErr (mcp/server.go), the typed wrapper mcp.AddTool registers: typedHandler
//     (typed.go) follows it call for call, but for the decoding below when the guard has
//     checked the arguments; its output handling is withOutputDefaults and isObjectJSON here.
//   - setSchema (mcp/server.go), the schemas inferred from In and Out and resolved,
//     without go-sdk's SchemaCache, whose methods are unexported: setSchema here.
//   - applySchema (mcp/tool.go), defaults applied and the arguments or output validated:
//     applyInputSchema, and withOutputDefaults with typedHandler's check of the output, here.
//   - internal/json's Unmarshal and NewDecoder, segmentio's decoder matching field names
//     case-sensitively: unmarshal and unmarshalAsGoSDK here.
//
// TestGoSDKInternalsFound holds the source of each original to the text it was copied
// from, and TestTypedHandlerParity holds the answers of typed tools registered here to
// mcp.AddTool's, call for call; .ci/run runs both on the newest go-sdk release on the
// module proxy too. A release that changes an original fails them, and the copy is to be
// brought in step. Meanwhile nothing goes unchecked: a guard that enforces has checked
// every call before the copied decoding runs, and under WithReportOnly the copy still
// validates every call with jsonschema-go, as go-sdk did when it was copied.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

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

// withOutputDefaults applies the schema's defaults to the output, as go-sdk's applySchema
// does for output, and returns the output's text and its value, for validation. Data that
// needed no defaults is returned as is; with no schema, data alone.
func withOutputDefaults(data json.RawMessage, resolved *jsonschema.Resolved) (json.RawMessage, any, error) {
	if resolved == nil {
		return data, nil, nil
	}
	var v any
	if len(data) > 0 {
		if err := unmarshal(data, &v); err != nil {
			return nil, nil, fmt.Errorf("unmarshaling output: %w", err)
		}
	}
	// A null output is coerced to {} under an object schema.
	_, isMap := v.(map[string]any)
	if !isMap && v == nil && resolved.Schema().Type == "object" {
		v, isMap = make(map[string]any), true
	}
	if !isMap {
		return data, v, nil
	}
	if err := resolved.ApplyDefaults(&v); err != nil {
		return nil, nil, fmt.Errorf("applying schema defaults:\n%w", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("marshalling with defaults: %v", err)
	}
	return out, v, nil
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
