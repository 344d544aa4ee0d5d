//go:build !linux

package main

import "os/exec"

// dieWithProxy does nothing where the kernel cannot kill a child when its parent ends: a
// proxy killed outright leaves its server to its stdin's end.
func dieWithProxy(*exec.Cmd) {}
