package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"unsafe"
)

// stubbornServer, as the test binary's first argument, makes it a server that writes its
// pid to stderr, then ignores its input's end and SIGTERM. Its init runs before the
// command role's (this file's name comes first), which the server inherits from the proxy.
const stubbornServer = "stubborn-server"

func init() {
	if len(os.Args) > 1 && os.Args[1] == stubbornServer {
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintf(os.Stderr, "stubborn server %d\n", os.Getpid())
		select {}
	}
}

// TestProxyKilledTakesItsServer: a proxy killed outright (SIGKILL, as the SDKs' stdio
// transports end a proxy slow to stop) leaves no server behind, even one that ignores its
// input's end and SIGTERM.
func TestProxyKilledTakesItsServer(t *testing.T) {
	cmd := exec.Command(os.Args[0], "proxy", "--", os.Args[0], stubbornServer)
	cmd.Env = append(os.Environ(), commandRole+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	out := bufio.NewReader(stderr)
	if _, err := fmt.Fscanf(out, "stubborn server %d\n", &pid); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	cmd.Process.Kill()
	// The server writes to the proxy's stderr too: the pipe ends only once it is gone,
	// whatever the machine's speed. A server that outlives the proxy hangs the test.
	io.Copy(io.Discard, out)
	cmd.Wait()
	// Its files close before it is done exiting: until then it is still running, and a
	// server that lives on keeps the test here.
	waitGone(t, pid)
}

// waitGone returns once the process pid has ended: the descriptor pidfd_open gives for it
// is readable then, whether or not its new parent has reaped it.
func waitGone(t *testing.T, pid int) {
	const sysPidfdOpen = 434
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	switch {
	case errno == syscall.ESRCH:
		return // reaped already
	case errno != 0:
		t.Fatalf("pidfd_open %d: %v", pid, errno)
	}
	defer syscall.Close(int(fd))
	for {
		var set syscall.FdSet // select may change it, even when interrupted
		bits := int(unsafe.Sizeof(set.Bits[0])) * 8
		set.Bits[int(fd)/bits] |= 1 << (int(fd) % bits)
		if _, err := syscall.Select(int(fd)+1, &set, nil, nil, nil); err != syscall.EINTR {
			if err != nil {
				t.Fatalf("select on the pidfd of %d: %v", pid, err)
			}
			return
		}
	}
}
