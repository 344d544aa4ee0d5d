package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// This file holds every read of mcp-go's internals: its unexported fields, found by
// reflect and read at their offsets, and the layout of Go values the adapter identifies
// by address. adapter.go asks the functions here and reads no layout itself. Each read
// was checked against every mcp-go release from v0.56.0 to v1.6.0 (TestMCPGoInternalsFound,
// which .ci/run runs on each release from go.mod's to the newest on the module proxy);
// each is found only as a field of exactly the name and type listed, and when it is not,
// the adapter takes a path that still validates every call (TestMCPGoInternalsMissing):
//
//   - MCPServer.tools (map[string]ServerTool) under MCPServer.toolsMu (sync.RWMutex):
//     the server's tools (serverTool). Otherwise mcp-go's GetTool, which copies the tool.
//   - streamableHttpSession.tools (*sessionToolsStore) and .sessionID (string), with
//     sessionToolsStore.mu (sync.RWMutex) and .tools (map[string]map[string]ServerTool);
//     sseSession.tools (a sync.Map of ServerTool by name): a session's own tools
//     (sessionTool). Otherwise, or for a value of another type in the sync.Map, the
//     session's GetSessionTools, which copies its tools.
//   - MCPServer.toolHandlerMiddlewares ([]ToolHandlerMiddleware) under
//     MCPServer.toolMiddlewareMu (sync.RWMutex): whether the guard's middleware runs last
//     (lastMiddleware). Otherwise the guard learns that from the first call on which it
//     wraps the registered handler itself; until then, a call whose handler is not the
//     one registered is checked against the registered tool's schema, as when other
//     middleware runs inside the guard's.
//   - CallToolResult.ResultType (a string kind, from v1.0.0): a result that asks the
//     client for input, which is checked only when it carries structuredContent
//     (needsInput). Otherwise every successful result is checked, and under
//     WithOutputValidation one that asks for input without structuredContent is refused
//     for lacking it.
//   - ToolInputSchema's fields (Defs, Type, Properties, Required, AdditionalProperties,
//     PropertyOrder from v1.1.0, Types and AdditionalFields from v1.5.0): a schema's cache
//     key is the identity of their values (keyOf), and each call compares their contents
//     with a snapshot of them (schemaSnapshot). A field of another type, or one more, and
//     the key is the schema's JSON text, marshalled on every call: slow, but never a
//     schema compiled for other text.
//   - a func value is one word, its closure (funcPointer), and reflect gives the code
//     it runs (codePointer): whether the handler about to run is the one registered. The
//     build fails where a func value is not one word.
//   - an interface value is two words, its type and its value (interfaceWords): whether
//     a handler received the arguments the middleware checked. Arguments of a type that
//     is not pointer-shaped would be copied on each conversion: a bound Handler would
//     check such a call again. The build fails where an interface value is not two words.

// The build fails where a func value is not one word, or an interface value not two.
var (
	_ [unsafe.Sizeof(server.ToolHandlerFunc(nil)) - unsafe.Sizeof(unsafe.Pointer(nil))]struct{}
	_ [unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(server.ToolHandlerFunc(nil))]struct{}
	_ [unsafe.Sizeof(any(nil)) - 2*unsafe.Sizeof(unsafe.Pointer(nil))]struct{}
	_ [2*unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(any(nil))]struct{}
)

// fieldOffset returns the offset in struct type t of its own field name, if it has one of
// type want. A field promoted from an embedded struct does not count: its offset is within
// that struct, which may even be behind a pointer.
func fieldOffset(t reflect.Type, name string, want reflect.Type) (uintptr, bool) {
	f, ok := t.FieldByName(name)
	if !ok || len(f.Index) != 1 || f.Type != want {
		return 0, false
	}
	return f.Offset, true
}

// A server's tools and a session's: mcp-go's sessions answer GetSessionTools with a fresh
// map of all their tools, and GetTool with a copy of the tool on the heap, so a lookup per
// call through them would cost in proportion to the session's tools. The adapter reads
// mcp-go's own maps instead, under mcp-go's own locks, where reflect finds them of the
// types it expects; anywhere else it asks mcp-go's methods.

// serverTool returns srv's tool of name, which srv must not be nil.
func serverTool(srv *server.MCPServer, name string) (server.ServerTool, bool) {
	if at := &serverTools; at.ok {
		return readTools(unsafe.Pointer(srv), at.lock, at.tools, name)
	}
	if st := srv.GetTool(name); st != nil {
		return *st, true
	}
	return server.ServerTool{}, false
}

// mcp-go keeps a server's tools in an unexported map under a lock, where serverTool reads
// them.
var serverTools = func() (at struct {
	lock, tools uintptr
	ok          bool
}) {
	t := reflect.TypeFor[server.MCPServer]()
	var okLock, okTools bool
	at.lock, okLock = fieldOffset(t, "toolsMu", reflect.TypeFor[sync.RWMutex]())
	at.tools, okTools = fieldOffset(t, "tools", reflect.TypeFor[map[string]server.ServerTool]())
	at.ok = okLock && okTools
	return at
}()

// readTools reads the tool of name from the map at offset tools in the struct at p, under
// the lock at offset lock, as mcp-go reads it.
func readTools(p unsafe.Pointer, lock, tools uintptr, name string) (server.ServerTool, bool) {
	mu := (*sync.RWMutex)(unsafe.Add(p, lock))
	mu.RLock()
	st, ok := (*(*map[string]server.ServerTool)(unsafe.Add(p, tools)))[name]
	mu.RUnlock()
	return st, ok
}

// storeKind says where a session type keeps its tools.
type storeKind uint8

const (
	unknownStore storeKind = iota // not known: ask GetSessionTools
	sharedStore                   // a pointer to a store of every session's tools, by session ID, under a lock
	ownStore                      // a sync.Map of its own, by tool name
)

// sessionLayout is where a session type keeps its tools, as reflect found it.
type sessionLayout struct {
	kind  storeKind
	store uintptr // the session's field: the shared store's pointer, or its own sync.Map
	id    uintptr // the session's ID, the shared store's key
	lock  uintptr // in the shared store: its lock
	tools uintptr // in the shared store: its map[sessionID]map[toolName]ServerTool
}

// sessionLayouts holds each session type's sessionLayout, found on its first call: mcp-go
// does not name its session types, so they are known only from their sessions.
var sessionLayouts sync.Map // reflect.Type → sessionLayout

// sessionTool returns the session's tool of name: read where mcp-go's streamable HTTP and
// SSE sessions keep it, else from GetSessionTools.
func sessionTool(s server.SessionWithTools, name string) (server.ServerTool, bool) {
	t := reflect.TypeOf(s)
	v, known := sessionLayouts.Load(t)
	if !known {
		v, _ = sessionLayouts.LoadOrStore(t, layoutOf(t))
	}
	switch l := v.(sessionLayout); l.kind {
	case sharedStore:
		p := reflect.ValueOf(s).UnsafePointer()
		if store := *(*unsafe.Pointer)(unsafe.Add(p, l.store)); store != nil {
			return readSessionTools(store, l, *(*string)(unsafe.Add(p, l.id)), name)
		}
	case ownStore:
		found, ok := (*sync.Map)(unsafe.Add(reflect.ValueOf(s).UnsafePointer(), l.store)).Load(name)
		if st, isTool := found.(server.ServerTool); isTool || !ok {
			return st, ok
		}
		// A value of another type: this release keeps something else there.
	}
	st, ok := s.GetSessionTools()[name]
	return st, ok
}

// readSessionTools reads the tool of name among session id's in the shared store, under the
// store's lock, as mcp-go reads them.
func readSessionTools(store unsafe.Pointer, l sessionLayout, id, name string) (server.ServerTool, bool) {
	mu := (*sync.RWMutex)(unsafe.Add(store, l.lock))
	mu.RLock()
	st, ok := (*(*map[string]map[string]server.ServerTool)(unsafe.Add(store, l.tools)))[id][name]
	mu.RUnlock()
	return st, ok
}

// layoutOf returns where sessions of type t keep their tools: found only in mcp-go's own
// session types, with fields of exactly the names and types that mcp-go reads; otherwise
// unknownStore.
func layoutOf(t reflect.Type) sessionLayout {
	pkg := reflect.TypeFor[server.MCPServer]().PkgPath()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem().PkgPath() != pkg {
		return sessionLayout{}
	}
	switch e := t.Elem(); e.Name() {
	case "streamableHttpSession":
		f, ok := e.FieldByName("tools")
		if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Name() != "sessionToolsStore" || f.Type.Elem().PkgPath() != pkg {
			return sessionLayout{}
		}
		l := sessionLayout{kind: sharedStore}
		var okStore, okID, okLock, okTools bool
		l.store, okStore = fieldOffset(e, "tools", f.Type)
		l.id, okID = fieldOffset(e, "sessionID", reflect.TypeFor[string]())
		l.lock, okLock = fieldOffset(f.Type.Elem(), "mu", reflect.TypeFor[sync.RWMutex]())
		l.tools, okTools = fieldOffset(f.Type.Elem(), "tools", reflect.TypeFor[map[string]map[string]server.ServerTool]())
		if okStore && okID && okLock && okTools {
			return l
		}
	case "sseSession":
		if off, ok := fieldOffset(e, "tools", reflect.TypeFor[sync.Map]()); ok {
			return sessionLayout{kind: ownStore, store: off}
		}
	}
	return sessionLayout{}
}

// The server's tool middleware: mcp-go keeps it in an unexported slice, in the order it
// runs, under a lock.
var middlewareList = func() (at struct {
	list, lock uintptr
	ok         bool
}) {
	t := reflect.TypeFor[server.MCPServer]()
	var okList, okLock bool
	at.list, okList = fieldOffset(t, "toolHandlerMiddlewares", reflect.TypeFor[[]server.ToolHandlerMiddleware]())
	at.lock, okLock = fieldOffset(t, "toolMiddlewareMu", reflect.TypeFor[sync.RWMutex]())
	at.ok = okList && okLock
	return at
}()

// lastMiddleware returns the tool middleware srv runs last, next to the handler (nil when
// srv has none), and known false when this release keeps its middleware elsewhere.
func lastMiddleware(srv *server.MCPServer) (mw server.ToolHandlerMiddleware, known bool) {
	at := &middlewareList
	if !at.ok {
		return nil, false
	}
	mu := (*sync.RWMutex)(unsafe.Add(unsafe.Pointer(srv), at.lock))
	mu.RLock()
	mws := *(*[]server.ToolHandlerMiddleware)(unsafe.Add(unsafe.Pointer(srv), at.list))
	if len(mws) > 0 {
		mw = mws[len(mws)-1]
	}
	mu.RUnlock()
	return mw, true
}

// needsInput reports whether res asks the client for input before the tool can finish
// (2026-07-28's multi round-trip): not the tool's result, which comes when the client calls
// again with the input, but a question. mcp-go sends the structuredContent of such a
// result all the same, so that is checked when there is one.
func needsInput(res *mcp.CallToolResult) bool {
	at := &resultTypeField
	return at.ok && *(*string)(unsafe.Add(unsafe.Pointer(res), at.offset)) == "input_required"
}

// CallToolResult.ResultType, in its embedded Result, came with mcp-go v1.0.0; earlier
// releases have no result that asks for input. needsInput reads the field where the
// release has it, so one build serves every release.
var resultTypeField = resultTypeOffset(reflect.TypeFor[mcp.CallToolResult]())

// resultTypeOffset finds the field ResultType of a string kind in t, through structs
// embedded by value only.
func resultTypeOffset(t reflect.Type) (at struct {
	offset uintptr
	ok     bool
}) {
	f, ok := t.FieldByName("ResultType")
	if !ok || f.Type.Kind() != reflect.String {
		return at
	}
	for _, i := range f.Index {
		if t.Kind() != reflect.Struct {
			return at
		}
		at.offset += t.Field(i).Offset
		t = t.Field(i).Type
	}
	at.ok = true
	return at
}

// argsIdentity identifies a call's arguments by the addresses of their raw bytes and their
// decoded value, never their contents: a handler that forwards other arguments must put
// them in other values.
type argsIdentity struct {
	raw     unsafe.Pointer
	rawLen  int
	decoded [2]unsafe.Pointer // the interface's type and value words
}

func identify(p *mcp.CallToolParams) argsIdentity {
	return argsIdentity{
		raw: unsafe.Pointer(unsafe.SliceData(p.RawArguments)), rawLen: len(p.RawArguments),
		decoded: interfaceWords(p.Arguments),
	}
}

// interfaceWords returns v's type and value words. Arguments that are an interface already
// keep their words; others are converted, so that no read depends on their type.
func interfaceWords(v any) [2]unsafe.Pointer { return *(*[2]unsafe.Pointer)(unsafe.Pointer(&v)) }

// funcPointer identifies a func value: its closure, or its function. Two func values are
// the same func when their pointers are equal.
func funcPointer[F server.ToolHandlerFunc | server.ToolHandlerMiddleware](f F) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&f))
}

// codePointer returns the code f runs, the same for every closure of one function literal.
func codePointer(f server.ToolHandlerFunc) uintptr { return reflect.ValueOf(f).Pointer() }

// sameCode reports whether f and g run the same code: closures of one function literal.
func sameCode(f, g server.ToolHandlerFunc) bool {
	return f != nil && g != nil && codePointer(f) == codePointer(g)
}

// schemaKey identifies a tool's schema by the identity of the values it is built from:
// addresses and lengths, never contents, so that finding its binding hashes no schema. It
// only finds the binding: values changed in place keep their key, and addresses are
// reused once their values are gone (a key keeps none alive). The binding keeps a snapshot
// of what the values held, which each call compares them with (schemaSnapshot).
type schemaKey struct {
	raw, props, defs, required, order, types, fields, additional uintptr
	rawLen, requiredLen, orderLen, typesLen                      int
	typ                                                          string
	additionalBool                                               int8 // 1 false, 2 true
	output                                                       bool // an outputSchema, which mcp-go marshals its own way
}

// keyOf keys a schema given as raw bytes or as mcp-go's schema struct (an outputSchema
// converted to the input schema's type, which has the same fields).
func keyOf(raw json.RawMessage, s *mcp.ToolInputSchema) schemaKey {
	k := schemaKey{raw: uintptr(unsafe.Pointer(unsafe.SliceData(raw))), rawLen: len(raw)}
	if !schemaFields.known {
		// A field keyOf does not know may change the schema's text: key on the text.
		b, err := json.Marshal(*s) // a copy: s stays off the heap
		if err != nil {
			b = []byte(err.Error())
		}
		k.typ = "\x01" + string(b)
		return k
	}
	k.props, k.defs = mapPointer(s.Properties), mapPointer(s.Defs)
	k.required, k.requiredLen = uintptr(unsafe.Pointer(unsafe.SliceData(s.Required))), len(s.Required)
	k.typ = s.Type
	at := &schemaFields
	k.order, k.orderLen = at.order.slice(s)
	k.types, k.typesLen = at.types.slice(s)
	k.fields = mapPointer(at.additionalFields(s))
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		k.additionalBool = 1
		if a {
			k.additionalBool = 2
		}
	default:
		if v := reflect.ValueOf(a); v.Kind() == reflect.Map || v.Kind() == reflect.Pointer {
			k.additional = v.Pointer()
		} else {
			// A value without identity: key on its JSON text, the slow but exact way.
			b, _ := json.Marshal(a)
			k.typ += "\x00" + string(b)
		}
	}
	return k
}

// schemaFields is what keyOf knows of ToolInputSchema. Three fields came with later mcp-go
// releases: PropertyOrder (v1.1.0), the order in which the schema's text lists its
// properties, which earlier releases list sorted; Types (v1.5.0), a type given as an
// array; AdditionalFields (v1.5.0), the schema's other top-level keywords, which earlier
// releases drop. keyOf reads each where the release has it, so one build serves every
// release.
var schemaFields = schemaFieldsOf(reflect.TypeFor[mcp.ToolInputSchema]())

// keyedFields are the fields of ToolInputSchema that keyOf keys on, with their types.
var keyedFields = map[string]reflect.Type{
	"Defs":                 reflect.TypeFor[map[string]any](),
	"Type":                 reflect.TypeFor[string](),
	"Types":                reflect.TypeFor[[]string](),
	"Properties":           reflect.TypeFor[map[string]any](),
	"Required":             reflect.TypeFor[[]string](),
	"AdditionalProperties": reflect.TypeFor[any](),
	"AdditionalFields":     reflect.TypeFor[map[string]any](),
	"PropertyOrder":        reflect.TypeFor[[]string](),
}

// schemaLayout is where ToolInputSchema keeps the fields some releases lack.
type schemaLayout struct {
	known                bool // every field is one keyOf keys on, of its type
	order, types, fields laterField
}

// laterField is the offset of a field some releases lack, where this one has it.
type laterField struct {
	offset uintptr
	ok     bool
}

// slice returns the identity of the []string field f of s: none where the release lacks it.
func (f laterField) slice(s *mcp.ToolInputSchema) (uintptr, int) {
	v := f.strings(s)
	return uintptr(unsafe.Pointer(unsafe.SliceData(v))), len(v)
}

// strings returns the []string field f of s: nil where the release lacks it.
func (f laterField) strings(s *mcp.ToolInputSchema) []string {
	if !f.ok {
		return nil
	}
	return *(*[]string)(unsafe.Add(unsafe.Pointer(s), f.offset))
}

// additionalFields returns s's AdditionalFields: nil where the release lacks them.
func (at *schemaLayout) additionalFields(s *mcp.ToolInputSchema) map[string]any {
	if !at.fields.ok {
		return nil
	}
	return *(*map[string]any)(unsafe.Add(unsafe.Pointer(s), at.fields.offset))
}

// schemaFieldsOf reports whether every field of the struct type t is one keyOf keys on,
// of its type, and where t has the fields some releases lack.
func schemaFieldsOf(t reflect.Type) (at schemaLayout) {
	if t.Kind() != reflect.Struct {
		return at
	}
	for i := range t.NumField() {
		if f := t.Field(i); keyedFields[f.Name] != f.Type {
			return at
		}
	}
	at.known = true
	later := func(name string) laterField {
		off, ok := fieldOffset(t, name, keyedFields[name])
		return laterField{off, ok}
	}
	at.order, at.types, at.fields = later("PropertyOrder"), later("Types"), later("AdditionalFields")
	return at
}

// A schemaSnapshot is a copy of the values keyOf keys on, as they were when the schema's
// text was made: a call whose tool's values no longer hold it has its schema's text made
// and bound again. Nil where keyOf keys on the text.
type schemaSnapshot struct {
	raw                    string
	typ                    string
	required, order, types []string
	props, defs, fields    frozen
	additional             frozen
	held                   int64
}

// Held returns the bytes the snapshot holds.
func (sn *schemaSnapshot) Held() int64 {
	if sn == nil {
		return 0
	}
	return sn.held
}

// sameStrings reports whether a and b hold the same strings, and are both nil or neither:
// at once when their strings' headers are the same words, as when a is the slice that b
// was copied from and no string of it has been replaced since. b keeps its strings' bytes
// alive, so a header of a that is one of b's points to the same bytes.
func sameStrings(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	size := len(a) * int(unsafe.Sizeof(""))
	words := func(s []string) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size) }
	return bytes.Equal(words(a), words(b)) || slices.Equal(a, b)
}

// snapshotIn returns the snapshot kept with a binding of a schemaKey.
func snapshotIn(kept guard.Kept) *schemaSnapshot {
	sn, _ := kept.(*schemaSnapshot)
	return sn
}

// snapshotOf copies the values a schema given as raw bytes or as mcp-go's schema struct
// is made of, those of the struct only when its text is made of them (schemaOf,
// outputSchemaOf).
func snapshotOf(raw json.RawMessage, s *mcp.ToolInputSchema) *schemaSnapshot {
	if !schemaFields.known {
		return nil
	}
	sn := &schemaSnapshot{raw: string(raw)}
	sn.held = int64(unsafe.Sizeof(*sn)) + int64(len(sn.raw))
	if len(raw) > 0 {
		return sn
	}
	at := &schemaFields
	strs := func(v []string) []string {
		sn.held += int64(unsafe.Sizeof("")) * int64(len(v))
		for _, e := range v {
			sn.held += int64(len(e))
		}
		return slices.Clone(v)
	}
	sn.typ, sn.required = s.Type, strs(s.Required)
	sn.order, sn.types = strs(at.order.strings(s)), strs(at.types.strings(s))
	sn.props, sn.defs = freeze(s.Properties, 0, &sn.held), freeze(s.Defs, 0, &sn.held)
	sn.fields, sn.additional = freeze(at.additionalFields(s), 0, &sn.held), freeze(s.AdditionalProperties, 0, &sn.held)
	return sn
}

// holds reports whether the schema's values hold what sn copied of them.
func (sn *schemaSnapshot) holds(raw json.RawMessage, s *mcp.ToolInputSchema) bool {
	if sn == nil {
		return true // keyed on its text
	}
	if string(raw) != sn.raw {
		return false
	}
	if len(raw) > 0 {
		return true
	}
	at := &schemaFields
	return s.Type == sn.typ && sameStrings(s.Required, sn.required) &&
		sameStrings(at.order.strings(s), sn.order) && sameStrings(at.types.strings(s), sn.types) &&
		sn.props.holds(s.Properties) && sn.defs.holds(s.Defs) &&
		sn.fields.holds(at.additionalFields(s)) && sn.additional.holds(s.AdditionalProperties)
}

func mapPointer(m map[string]any) uintptr {
	if m == nil {
		return 0
	}
	return reflect.ValueOf(m).Pointer()
}
