//go:build unix

package proxy

import (
	"net"
	"syscall"
)

// open reports whether the idle connection c is still open: neither closed by the
// upstream nor holding bytes no request asked for. It peeks without waiting.
func open(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK // nothing to read: open and quiet
		return true
	})
	return err == nil && alive
}
