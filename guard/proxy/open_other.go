//go:build !unix

package proxy

import "net"

// open reports whether the idle connection c is still open; where a socket cannot be
// peeked at without waiting, a connection the upstream closed fails its next request.
func open(net.Conn) bool { return true }
