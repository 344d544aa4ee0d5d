package mcpvalidate

import "github.com/mcpvalidate/mcpvalidate/guard"

// An Option configures a guard: [guard.WithReportOnly], [guard.WithObserver],
// [guard.WithMaxDepth] and the other options of package guard.
type Option = guard.Option
