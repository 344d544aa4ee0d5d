module github.com/mcpvalidate/mcpvalidate/soak

go 1.25.5

require (
	github.com/google/pprof v0.0.0-20260903180319-d6c3cb2f37ec
	github.com/mark3labs/mcp-go v0.56.0
	github.com/mcpvalidate/mcpvalidate v0.0.0-00010101000000-000000000000
	github.com/mcpvalidate/mcpvalidate/gosdk v0.0.0-00010101000000-000000000000
	github.com/mcpvalidate/mcpvalidate/guard v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v1.8.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/mcpvalidate/mcpvalidate/guard => ../guard

replace github.com/mcpvalidate/mcpvalidate/gosdk => ../gosdk

replace github.com/mcpvalidate/mcpvalidate => ..

replace github.com/mcpvalidate/mcpvalidate/otel => ../otel
