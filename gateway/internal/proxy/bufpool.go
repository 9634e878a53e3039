package proxy

import "sync"

// copyBufferSize matches ReverseProxy's own default copy buffer.
const copyBufferSize = 32 << 10

// bufferPool recycles ReverseProxy's body-copy buffers; without it every
// proxied response allocates 32 KiB.
type bufferPool struct{ p sync.Pool }

func newBufferPool() *bufferPool {
	return &bufferPool{p: sync.Pool{New: func() any {
		b := make([]byte, copyBufferSize)
		return &b
	}}}
}

// Get returns a buffer of copyBufferSize bytes.
func (bp *bufferPool) Get() []byte { return *bp.p.Get().(*[]byte) }

// Put returns a buffer for reuse; foreign sizes are dropped.
func (bp *bufferPool) Put(b []byte) {
	if cap(b) != copyBufferSize {
		return
	}
	b = b[:copyBufferSize]
	bp.p.Put(&b)
}
