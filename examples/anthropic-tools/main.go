// Command anthropic-tools runs Claude's tool loop with mcpvalidate's check in front of each
// tool: a tool_use block whose input breaks the tool's inputSchema is answered with the
// refusal's text as an error tool_result, in the words an MCP server behind the guard
// gives, and the tool does not run; the model repairs the call on its next turn.
//
//	ANTHROPIC_API_KEY=... go run . "What's the weather in Oslo for the next three days?"
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A tool is one tool the model may call: its inputSchema and what runs it.
type tool struct {
	description string
	schema      []byte
	run         func(args json.RawMessage) (string, error)
}

// A toolbox is the tools of one agent and the guard that checks their calls.
type toolbox struct {
	guard *guard.Guard
	tools map[string]tool
}

// params returns the tools as the Messages API takes them.
func (tb *toolbox) params() ([]anthropic.ToolUnionParam, error) {
	var out []anthropic.ToolUnionParam
	for name, t := range tb.tools {
		var schema map[string]any
		if err := json.Unmarshal(t.schema, &schema); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		input := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		for k, v := range schema {
			switch k {
			case "type", "properties":
			case "required":
				for _, r := range v.([]any) {
					input.Required = append(input.Required, r.(string))
				}
			default:
				input.ExtraFields[k] = v
			}
		}
		p := anthropic.ToolUnionParamOfTool(input, name)
		p.OfTool.Description = anthropic.String(t.description)
		out = append(out, p)
	}
	return out, nil
}

// answer runs the tool_use blocks of the model's message msg and returns the user message
// of their results. A call the guard refuses gets the refusal's text as an error result;
// its tool does not run.
func (tb *toolbox) answer(msg *anthropic.Message) (anthropic.MessageParam, bool) {
	var results []anthropic.ContentBlockParamUnion
	for _, block := range msg.Content {
		if block.Type != "tool_use" {
			continue
		}
		use := block.AsToolUse()
		t, ok := tb.tools[use.Name]
		if !ok {
			results = append(results, anthropic.NewToolResultBlock(use.ID, "Unknown tool: "+guard.ShownName(use.Name), true))
			continue
		}
		if vd := tb.guard.CheckCall(use.Name, t.schema, use.Input); vd.Refused() {
			results = append(results, anthropic.NewToolResultBlock(use.ID, vd.Text(), true))
			continue
		}
		out, err := t.run(use.Input)
		if err != nil {
			results = append(results, anthropic.NewToolResultBlock(use.ID, err.Error(), true))
			continue
		}
		results = append(results, anthropic.NewToolResultBlock(use.ID, out, false))
	}
	return anthropic.NewUserMessage(results...), len(results) > 0
}

// weather is the example's one tool.
var weather = tool{
	description: "The weather forecast for a city",
	schema: []byte(`{"type":"object","properties":{"location":{"type":"string","description":"The city"},` +
		`"days":{"type":"integer","minimum":1,"maximum":7,"description":"Days ahead"}},"required":["location"],"additionalProperties":false}`),
	run: func(args json.RawMessage) (string, error) {
		var in struct {
			Location string `json:"location"`
			Days     int    `json:"days"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: sunny, 21°C, for the next %d day(s)", in.Location, max(in.Days, 1)), nil
	},
}

func main() {
	if os.Getenv("ANTHROPIC_API_KEY") == "" || len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, `usage: ANTHROPIC_API_KEY=... anthropic-tools "a question"`)
		os.Exit(2)
	}
	tb := &toolbox{guard: guard.New(guard.WithFormatter(guard.DetailedFormat)), tools: map[string]tool{"weather": weather}}
	tools, err := tb.params()
	if err != nil {
		log.Fatal(err)
	}
	client := anthropic.NewClient()
	messages := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(strings.Join(os.Args[1:], " ")))}
	for range 8 {
		msg, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
			Model: anthropic.ModelClaudeSonnet4_6, MaxTokens: 1024, Messages: messages, Tools: tools,
		})
		if err != nil {
			log.Fatal(err)
		}
		messages = append(messages, msg.ToParam())
		results, any := tb.answer(msg)
		if !any {
			for _, block := range msg.Content {
				if block.Type == "text" {
					fmt.Println(block.AsText().Text)
				}
			}
			break
		}
		messages = append(messages, results)
	}
	for _, s := range tb.guard.Stats() {
		fmt.Fprintf(os.Stderr, "%s: %d accepted, %d refused, %d repaired\n", s.Tool, s.Accepted, s.Refused, s.Repaired)
	}
}
