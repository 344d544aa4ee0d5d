module github.com/mcpvalidate/mcpvalidate

go 1.25.5

require (
	github.com/mark3labs/mcp-go v0.56.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	golang.org/x/text v0.14.0 // indirect
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/mcpvalidate/mcpvalidate/guard v0.0.0-00010101000000-000000000000
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
)

replace github.com/mcpvalidate/mcpvalidate/guard => ./guard
