package main

import (
	"os/exec"
	"syscall"
)

// dieWithProxy has the kernel kill the server when the proxy's process ends, however it
// ends: a client that kills the proxy (the SDKs' stdio transports send SIGKILL two
// seconds after SIGTERM) leaves no server running. The signal comes when the thread that
// started the server ends; the Go runtime ends a thread only when a goroutine locked to
// it returns, which the proxy's never do.
func dieWithProxy(server *exec.Cmd) {
	server.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
