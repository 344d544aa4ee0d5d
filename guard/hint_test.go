package guard

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestDetailedFormat(t *testing.T) {
	weather := `{"type":"object","additionalProperties":false,"required":["location"],"properties":{
		"location":{"type":"string"},"days":{"type":"integer"},"units":{"enum":["celsius","fahrenheit"]},"limit":{"type":"integer"}}}`
	nested := `{"type":"object","properties":{"customer":{"type":"object","additionalProperties":false,"properties":{
		"address":{"type":"string"},"name":{"type":"string"}}}}}`
	wide := `{"type":"object","additionalProperties":false,"properties":{"a1":{},"a2":{},"a3":{},"a4":{},"a5":{},"a6":{},"a7":{},"a8":{},"a9":{}}}`
	full := `{"type":"object","properties":{"n":{"type":"integer"}},"unevaluatedProperties":false}`
	many := closedObject(200, func(i int) string { return fmt.Sprintf("customer_address_line_%03d", i) })
	cases := []struct{ name, schema, args, want string }{
		{"the type sent", weather, `{"location":"zzz","days":"zzz2"}`, "property 'days' must be integer, not string"},
		{"a fraction for an integer", weather, `{"location":"zzz","days":2.5}`, "property 'days' must be integer, not number"},
		{"a boolean for an integer", weather, `{"location":"zzz","days":true}`, "property 'days' must be integer, not boolean"},
		{"null for an optional member", weather, `{"location":"zzz","limit":null}`, "property 'limit' must be integer, not null (leave it out: it is optional)"},
		{"null for a required member", weather, `{"location":null}`, "property 'location' must be string, not null"},
		{"an enum value in another case", weather, `{"location":"zzz","units":"Celsius"}`, "property 'units' must be one of ['celsius', 'fahrenheit'] (did you mean 'celsius'?)"},
		{"an enum value with spaces", weather, `{"location":"zzz","units":" fahrenheit "}`, "property 'units' must be one of ['celsius', 'fahrenheit'] (did you mean 'fahrenheit'?)"},
		{"an enum value not close", weather, `{"location":"zzz","units":"kelvin"}`, "property 'units' must be one of ['celsius', 'fahrenheit']"},
		{"a misspelt name", weather, `{"loction":"zzz"}`, "missing required property 'location' | unexpected property 'loction' (did you mean 'location'?)"},
		{"a name in another case", weather, `{"location":"zzz","Days":2}`, "unexpected property 'Days' (did you mean 'days'?)"},
		{"a misspelt name whose declared name is used", weather, `{"location":"zzz","loction":"zzz"}`,
			"unexpected property 'loction' (the properties are 'location', 'days', 'units', 'limit')"},
		{"the declared names once per object", weather, `{"location":"zzz","x":1,"y":2}`,
			"unexpected property 'x' (the properties are 'location', 'days', 'units', 'limit') | unexpected property 'y'"},
		{"the declared names after a near one", weather, `{"location":"zzz","dys":1,"y":2}`,
			"unexpected property 'dys' (did you mean 'days'?) | unexpected property 'y' (the properties are 'location', 'days', 'units', 'limit')"},
		{"a typo of one of 200 names", many, `{"customer_address_lnie_117":1}`,
			"unexpected property 'customer_address_lnie_117' (did you mean 'customer_address_line_117'?)"},
		{"a misspelt nested name", nested, `{"customer":{"adress":"zzz"}}`, "unexpected property 'customer.adress' (did you mean 'customer.address'?)"},
		{"an object that declares many names", wide, `{"b":1}`, "unexpected property 'b'"},
		{"a long name is not compared", weather, `{"location":"zzz","` + strings.Repeat("d", 70) + `":1}`,
			`unexpected property "` + strings.Repeat("d", 32) + `"…(22 characters not shown)…"` + strings.Repeat("d", 16) + `"` + " (the properties are 'location', 'days', 'units', 'limit')"},
		{"the full engine", full, `{"n":"zzz"}`, "property 'n' must be integer, not string"},
		{"bad JSON gets no hints", weather, `{"days":"zzz",`, "arguments are not valid JSON: expected a member name in double quotes at offset 14"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := []CompileOption{WithHints()}
			if c.schema == full {
				opts = append(opts, WithFullEngine())
			}
			v, err := Compile([]byte(c.schema), opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(Messages(v.Validate([]byte(c.args)), DetailedFormat), " | ")
			if got != c.want {
				t.Errorf("\n got %q\nwant %q", got, c.want)
			}
			if strings.Contains(got, "zzz") {
				t.Errorf("a value sent is quoted: %q", got)
			}
		})
	}
}

// TestEditDistance: the banded distance is the plain Levenshtein distance, capped at
// most+1.
func TestEditDistance(t *testing.T) {
	naive := func(a, b []rune) int {
		prev := make([]int, len(b)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(a); i++ {
			cur := make([]int, len(b)+1)
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				c := 1
				if a[i-1] == b[j-1] {
					c = 0
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			}
			prev = cur
		}
		return prev[len(b)]
	}
	words := []string{"", "a", "ab", "ba", "abc", "acb", "location", "loction", "lcoation", "days", "dys", "dayss", "customer_address_line_117", "customer_address_lnie_117", "xyzxyzxyz", "zyxzyxzyx", "aaaaab", "baaaaa"}
	for _, x := range words {
		for _, y := range words {
			a, b := []rune(x), []rune(y)
			for most := 1; most < 10; most++ {
				want := min(naive(a, b), most+1)
				if got := editDistance(a, b, most); got != want {
					t.Errorf("%q %q most %d: got %d want %d", x, y, most, got, want)
				}
			}
		}
	}
}

// TestHintsUnderAnyFormatter: hints are asked for, not guessed from the formatter, so a
// formatter that wraps DetailedFormat tells them too.
func TestHintsUnderAnyFormatter(t *testing.T) {
	wrapped := func(v Violation) string { return "» " + DetailedFormat(v) }
	g := New(WithFormatter(wrapped))
	s := g.Bind("weather", nil, []byte(weatherSchema), nil)
	vd := g.Check(&Call{Tool: "weather"}, s, []byte(`{"locaton":"x"}`), nil)
	if want := refusalPrefix + "» missing required property 'location'; » unexpected property 'locaton' (did you mean 'location'?)"; vd.Text() != want {
		t.Errorf("got %q, want %q", vd.Text(), want)
	}
}

// closedObject is the schema of an object that allows only the n names name(i).
func closedObject(n int, name func(int) string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%q:{}`, name(i))
	}
	b.WriteString("}}")
	return b.String()
}

// TestHintWorkIsBounded: unexpected names that are each close to every one of 200 long
// declared names cost no more steps, for 80 of them, than the budget of one refusal: the
// hints' work is bounded per refusal, not per name.
func TestHintWorkIsBounded(t *testing.T) {
	long := func(tag string) func(int) string {
		return func(i int) string { return strings.Repeat("a", 52) + fmt.Sprintf("%s%07d", tag, i) }
	}
	v, err := Compile([]byte(closedObject(200, long("0"))), WithHints(), WithMaxViolations(100))
	if err != nil {
		t.Fatal(err)
	}
	// The last charge may pass the budget by what one charge can take: the object's bytes
	// read, or one edit distance of two names of at most nearNames runes.
	steps := func(n int) (spent, most int) {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf(`%q:1`, long("x")(i))
		}
		args := []byte("{" + strings.Join(names, ",") + "}")
		vs := v.violations(args)
		if len(vs) != n || vs[0].Kind != KindAdditional {
			t.Fatalf("%d violations, want %d of kind additional", len(vs), n)
		}
		budget := hintWork + hintWorkPerByte*len(args)
		h := hints{v: v, args: args, work: budget}
		for i := range vs {
			h.add(&vs[i])
		}
		return budget - h.work, budget + max(len(args), nearNames*(2*nearNames+1))
	}
	few, _ := steps(10)
	many, most := steps(80)
	t.Logf("hints' steps: %d for 10 unexpected names, %d for 80, of at most %d", few, many, most)
	if many > most || many > 3*few {
		t.Errorf("a refusal with 80 unexpected names takes %d steps, one with 10 %d; at most %d", many, few, most)
	}
}

// The default wording is the contract's, hints or not.
func TestHintsLeaveTheDefaultWording(t *testing.T) {
	got := check(t, weatherSchema, `{"days": "2", "units": "C", "locaton": 1}`)
	want := "missing required property 'location' | property 'days' must be integer | property 'units' must be one of ['c', 'f'] | unexpected property 'locaton'"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

// hintArgs builds about size bytes of arguments for hintSchema: every declared member,
// each with a long string, then misspelt names, each one edit from a declared name that is
// present, so that every declared name is a candidate the object must be read for.
func hintArgs(size int) []byte {
	var b strings.Builder
	b.WriteString("{")
	value := strings.Repeat("v", max(1, size/1000-16))
	for i := range 1000 {
		fmt.Fprintf(&b, `"field_%04d":"%s",`, i, value)
	}
	for i := range 25 {
		fmt.Fprintf(&b, `"fiel_%04d":1,`, i)
	}
	b.WriteString(`"days":"x"}`)
	return []byte(b.String())
}

var hintSchema = func() string {
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{"days":{"type":"integer"}`)
	for i := range 1000 {
		fmt.Fprintf(&b, `,"field_%04d":{"type":"string"}`, i)
	}
	b.WriteString("}}")
	return b.String()
}()

// TestHintsAtScale: on a megabyte of arguments whose every unexpected name is close to
// many declared names, all present, the hints read the object once a violation, allocate
// no more than the arguments' size, and suggest nothing wrong.
func TestHintsAtScale(t *testing.T) {
	v, err := Compile([]byte(hintSchema), WithHints())
	if err != nil {
		t.Fatal(err)
	}
	args := hintArgs(1 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vs := v.Validate(args)
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(args)) {
		t.Errorf("%d bytes allocated for %d bytes of arguments", allocated, len(args))
	}
	msgs := Messages(vs, DetailedFormat)
	if len(msgs) != 21 || msgs[0] != "unexpected property 'fiel_0000'" || msgs[20] != "and 6 more violations" {
		t.Errorf("got %d messages: %q … %q", len(msgs), msgs[0], msgs[len(msgs)-1])
	}
}

// BenchmarkHintsSlope: the hints' cost per byte of arguments from 64 KB to 1 MB.
func BenchmarkHintsSlope(b *testing.B) {
	v, err := Compile([]byte(hintSchema), WithHints())
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{64 << 10, 1 << 20} {
		args := hintArgs(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				v.Validate(args)
			}
		})
	}
}

// TestSentForMissingName: under DetailedFormat, a missing required name is followed by the
// name sent in its place, when that name is close to it and to no other missing name, and
// the object expects no member of that name.
func TestSentForMissingName(t *testing.T) {
	github := `{"type":"object","required":["owner","repo","pullNumber"],"properties":{
		"owner":{"type":"string"},"repo":{"type":"string"},"pullNumber":{"type":"number"}}}`
	declared := `{"type":"object","required":["pullNumber"],"properties":{"pullNumber":{},"pull_number":{}}}`
	owners := `{"type":"object","required":["owner"],"properties":{"owner":{},"owners":{}}}`
	patterned := `{"type":"object","required":["xId"],"properties":{"xId":{}},"patternProperties":{"^x_":{}}}`
	sizes := `{"type":"object","required":["pageSize","pageSizes"]}`
	twins := `{"type":"object","required":["pull_number","pullNumber"]}`
	short := `{"type":"object","required":["id"]}`
	closed := `{"type":"object","additionalProperties":false,"required":["aBC"],"properties":{"aBC":{}}}`
	closedNear := `{"type":"object","additionalProperties":false,"required":["pullNumber"],"properties":{"pullNumber":{}}}`
	nested := `{"type":"object","properties":{"pr":{"type":"object","required":["pullNumber"]},
		"prs":{"type":"array","items":{"type":"object","required":["pullNumber"]}}}}`
	accented := `{"type":"object","required":["città"]}`
	const ok = `"owner":"zzz","repo":"zzz",`
	cases := []struct{ name, schema, args, want, sent string }{
		{"snake case for camel case", github, `{` + ok + `"pull_number":42}`, "missing required property 'pullNumber' (sent 'pull_number')", "pull_number"},
		{"kebab case", github, `{` + ok + `"pull-number":42}`, "missing required property 'pullNumber' (sent 'pull-number')", "pull-number"},
		{"another case", github, `{` + ok + `"PullNumber":42}`, "missing required property 'pullNumber' (sent 'PullNumber')", "PullNumber"},
		{"no word break", github, `{` + ok + `"pullnumber":42}`, "missing required property 'pullNumber' (sent 'pullnumber')", "pullnumber"},
		{"one letter dropped", github, `{` + ok + `"pullNumbr":42}`, "missing required property 'pullNumber' (sent 'pullNumbr')", "pullNumbr"},
		{"one letter changed and another spelling", github, `{` + ok + `"pull_nunber":42}`, "missing required property 'pullNumber' (sent 'pull_nunber')", "pull_nunber"},
		{"one letter added", github, `{` + ok + `"pullNumbers":42}`, "missing required property 'pullNumber' (sent 'pullNumbers')", "pullNumbers"},
		{"two letters apart", github, `{` + ok + `"pulNumbr":42}`, "missing required property 'pullNumber'", ""},
		{"each missing name its own", github, `{"Owner":"zzz","REPO":"zzz","pull_number":42}`,
			"missing required property 'owner' (sent 'Owner') | missing required property 'repo' (sent 'REPO') | missing required property 'pullNumber' (sent 'pull_number')", "Owner"},
		{"two names sent for one", github, `{` + ok + `"pull_number":42,"PullNumber":42}`, "missing required property 'pullNumber'", ""},
		{"the closest of two", github, `{` + ok + `"pull_number":42,"pullNumbr":42}`, "missing required property 'pullNumber' (sent 'pull_number')", "pull_number"},
		{"a name as close to another declared name", owners, `{"Owners":["zzz"]}`, "missing required property 'owner'", ""},
		{"a declared name is not suggested", declared, `{"pull_number":42}`, "missing required property 'pullNumber'", ""},
		{"a name a pattern expects is not suggested", patterned, `{"x_id":42}`, "missing required property 'xId'", ""},
		{"one name sent, the closest of two missing", sizes, `{"page_size":10}`,
			"missing required property 'pageSize' (sent 'page_size') | missing required property 'pageSizes'", "page_size"},
		{"one name sent, as close to two missing", twins, `{"PullNumber":10}`,
			"missing required property 'pull_number' | missing required property 'pullNumber'", ""},
		{"a short name in another case", short, `{"ID":"zzz"}`, "missing required property 'id' (sent 'ID')", "ID"},
		{"a short name one letter apart", short, `{"ix":"zzz"}`, "missing required property 'id'", ""},
		{"on a closed object, beside the unexpected name's list", closed, `{"a_b_c":"zzz"}`,
			"missing required property 'aBC' (sent 'a_b_c') | unexpected property 'a_b_c' (the properties are 'aBC')", "a_b_c"},
		{"on a closed object, said once", closedNear, `{"pull_number":"zzz"}`,
			"missing required property 'pullNumber' | unexpected property 'pull_number' (did you mean 'pullNumber'?)", ""},
		{"nested", nested, `{"pr":{"pull_number":"zzz"}}`, "missing required property 'pr.pullNumber' (sent 'pr.pull_number')", "pull_number"},
		{"in an item", nested, `{"prs":[{"pullNumber":1},{"PULL_NUMBER":"zzz"}]}`, "missing required property 'prs[1].pullNumber' (sent 'prs[1].PULL_NUMBER')", "PULL_NUMBER"},
		{"in the next object, its own names", nested, `{"prs":[{"pull_number":1},{"pullnumber":"zzz"}]}`,
			"missing required property 'prs[0].pullNumber' (sent 'prs[0].pull_number') | missing required property 'prs[1].pullNumber' (sent 'prs[1].pullnumber')", "pull_number"},
		{"a name that is not plain", accented, `{"Città":"zzz"}`, `missing required property "città" (sent "Città")`, "Città"},
		{"under allOf, where the schema applies others in place", `{"allOf":[{"required":["pullNumber"]}]}`, `{"pull_number":1}`,
			"missing required property 'pullNumber'", ""},
		{"a long name is not compared", `{"type":"object","required":["` + strings.Repeat("d", 70) + `"]}`, `{"` + strings.Repeat("D", 70) + `":1}`,
			`missing required property "` + strings.Repeat("d", 32) + `"…(22 characters not shown)…"` + strings.Repeat("d", 16) + `"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile([]byte(c.schema), WithHints())
			if err != nil {
				t.Fatal(err)
			}
			vs := v.Validate([]byte(c.args))
			got := strings.Join(Messages(vs, DetailedFormat), " | ")
			if got != c.want {
				t.Errorf("\n got %q\nwant %q", got, c.want)
			}
			if strings.Contains(got, "zzz") || strings.Contains(got, "42") {
				t.Errorf("a value sent is quoted: %q", got)
			}
			if len(vs) == 0 || vs[0].Kind != KindRequired || vs[0].Sent != c.sent {
				t.Fatalf("violations %+v: want the first, of kind required, with Sent %q", vs, c.sent)
			}
			for _, f := range []Formatter{DefaultFormat, GatewayFormat} {
				if m := f(vs[0]); strings.Contains(m, "sent") || c.sent != "" && strings.Contains(m, c.sent) {
					t.Errorf("%q names the name sent outside DetailedFormat", m)
				}
			}
		})
	}
}

// TestMissingNameWorkIsBounded: a refusal with 10,000 names sent and 1,000 required names
// missing, which compared two by two would take 10,000,000 comparisons, makes at most
// nearSent comparisons per missing name, stays within the hints' work, and allocates what
// one with 300 names sent does, whether its names are far apart (the one meant is still
// found) or all alike (the work runs out and nothing is suggested).
func TestMissingNameWorkIsBounded(t *testing.T) {
	const missing = 1_000
	var schema strings.Builder
	schema.WriteString(`{"type":"object","required":[`)
	for i := range missing {
		if i > 0 {
			schema.WriteByte(',')
		}
		fmt.Fprintf(&schema, `"required_name_%04d"`, i)
	}
	schema.WriteString(`]}`)
	v, err := Compile([]byte(schema.String()), WithHints(), WithMaxViolations(2*missing))
	if err != nil {
		t.Fatal(err)
	}
	type cost struct{ compared, steps, budget, allocs, bytes int }
	refusal := func(t *testing.T, sent int, member string) (cost, string) {
		var args strings.Builder
		args.WriteString(`{"Required_Name_0007":1`)
		for i := range sent - 1 {
			fmt.Fprintf(&args, `,"`+member+`":1`, i)
		}
		args.WriteString("}")
		data := []byte(args.String())
		vs := v.violations(data)
		if len(vs) != missing || vs[7].Kind != KindRequired {
			t.Fatalf("%d violations, want %d missing names", len(vs), missing)
		}
		c := cost{budget: hintWork + hintWorkPerByte*len(data)}
		var h hints
		run := func() {
			h = hints{v: v, args: data, work: c.budget}
			for i := range vs {
				h.add(&vs[i])
			}
		}
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // as testing.AllocsPerRun, for the counts of this goroutine alone
		run()
		const runs = 5
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			run()
		}
		runtime.ReadMemStats(&after)
		c.compared, c.steps = h.compared, c.budget-h.work
		c.allocs, c.bytes = int(after.Mallocs-before.Mallocs)/runs, int(after.TotalAlloc-before.TotalAlloc)/runs
		t.Logf("%d names sent, %d bytes: %d comparisons, %d steps of %d, %d allocations, %d bytes",
			sent, len(data), c.compared, c.steps, c.budget, c.allocs, c.bytes)
		return c, vs[7].Sent
	}
	shapes := []struct {
		name   string
		member string // a name sent, from its index
		want   string // Sent of required_name_0007
	}{
		{"far apart", "member_%05d", "Required_Name_0007"},
		{"all alike", "required_name_x%04d", ""},
	}
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			few, _ := refusal(t, 300, shape.member)
			many, sent := refusal(t, 10_000, shape.member)
			if sent != shape.want {
				t.Errorf("Sent %q, want %q", sent, shape.want)
			}
			if many.compared > nearSent*missing || many.steps > many.budget+2*nearNames+1 {
				t.Errorf("%d comparisons, %d steps: want at most %d and %d", many.compared, many.steps, nearSent*missing, many.budget+2*nearNames+1)
			}
			if many.allocs > few.allocs+2 || many.bytes > few.bytes+4<<10 {
				t.Errorf("%d allocations, %d bytes with 10,000 names sent; %d, %d with 300", many.allocs, many.bytes, few.allocs, few.bytes)
			}
		})
	}
}
