package gosdk

import (
	"bytes"
	"sync"
)

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a child process's
// stdout and stderr and the reads of the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
