package mcpvalidate

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/server"
)

// This file finds the called tool without copying a registry. mcp-go's sessions answer
// GetSessionTools with a fresh map of all their tools, and GetTool with a copy of the tool
// on the heap: a lookup per call would cost in proportion to the session's tools. So the
// adapter reads mcp-go's own maps, under mcp-go's own locks, where reflect finds them of
// the types it expects; anywhere else it asks mcp-go's methods.

// findTool returns the tool that mcp-go runs for a call of name: the session's tool of that
// name if there is one, else the server's.
func findTool(srv *server.MCPServer, session server.ClientSession, name string) (server.ServerTool, bool) {
	if s, ok := session.(server.SessionWithTools); ok {
		if st, ok := sessionTool(s, name); ok {
			return st, true
		}
	}
	if srv == nil {
		return server.ServerTool{}, false
	}
	if at := &serverTools; at.ok {
		return readTools(unsafe.Pointer(srv), at.lock, at.tools, name)
	}
	if st := srv.GetTool(name); st != nil {
		return *st, true
	}
	return server.ServerTool{}, false
}

// mcp-go keeps a server's tools in an unexported map under a lock, where findTool reads
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
		st, isTool := found.(server.ServerTool)
		return st, ok && isTool
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
