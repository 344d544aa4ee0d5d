module github.com/mcpvalidate/mcpvalidate/guard/proxy/interop

go 1.25.5

require (
	github.com/mcpvalidate/mcpvalidate/gosdk v0.0.0-00010101000000-000000000000
	github.com/mcpvalidate/mcpvalidate/guard v0.0.0-00010101000000-000000000000
	github.com/mcpvalidate/mcpvalidate/otel v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v1.8.0
	go.opentelemetry.io/otel v1.46.0
	go.opentelemetry.io/otel/sdk v1.46.0
	go.opentelemetry.io/otel/sdk/metric v1.46.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel/metric v1.46.0 // indirect
	go.opentelemetry.io/otel/trace v1.46.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/mcpvalidate/mcpvalidate/gosdk => ../../../gosdk

replace github.com/mcpvalidate/mcpvalidate/guard => ../..

replace github.com/mcpvalidate/mcpvalidate/otel => ../../../otel
