package main

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A turn of the model that calls weather twice, once with the days as a string and a
// member it made up, as the Messages API returns it: the first call is refused with the
// guard's words, and only the second runs.
func Example() {
	var msg anthropic.Message
	if err := json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6",`+
		`"content":[{"type":"tool_use","id":"toolu_1","name":"weather","input":{"location":"Oslo","days":"3","unit":"C"}},`+
		`{"type":"tool_use","id":"toolu_2","name":"weather","input":{"location":"Oslo","days":3}}],`+
		`"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`), &msg); err != nil {
		panic(err)
	}
	tb := &toolbox{guard: guard.New(guard.WithFormatter(guard.DetailedFormat)), tools: map[string]tool{"weather": weather}}
	results, _ := tb.answer(&msg)
	for _, block := range results.OfUser.Content {
		r := block.OfToolResult
		fmt.Printf("%s error=%v: %s\n", r.ToolUseID, r.IsError.Value, r.Content[0].OfText.Text)
	}
	// Output:
	// toolu_1 error=true: Invalid arguments: property 'days' must be integer, not string; unexpected property 'unit' (the properties are 'location', 'days')
	// toolu_2 error=false: Oslo: sunny, 21°C, for the next 3 day(s)
}
