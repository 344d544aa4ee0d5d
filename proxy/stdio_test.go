package proxy

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPollable reopens a pipe, and only a pipe, so that it reads the same bytes without
// blocking the client's end of it.
func TestPollable(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Fd() // as os.Stdin is: blocking
	regular, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	for _, tc := range []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"pipe", r, runtime.GOOS == "linux"},
		{"regular file", regular, false},
		{"not a file", strings.NewReader("x"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reopened := pollable(tc.in)
			if reopened != tc.want || reopened == (got == tc.in) {
				t.Fatalf("reopened %v (the reader itself: %v), want %v", reopened, got == tc.in, tc.want)
			}
			if !reopened {
				return
			}
			defer got.(*os.File).Close()
			go func() {
				w.WriteString("a line\n")
				w.Close()
			}()
			if b, err := io.ReadAll(got); string(b) != "a line\n" || err != nil {
				t.Fatalf("read %q, %v", b, err)
			}
		})
	}
}
