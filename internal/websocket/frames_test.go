package websocket

import (
	"bytes"
	"encoding/binary"
	"io"
	"sync"
)

// frame encodes one frame as a server sends it (unmasked), or masked with
// key when key is set. fin false leaves the message open.
func frame(op Opcode, fin bool, payload []byte, key []byte) []byte {
	var b []byte
	first := byte(op)
	if fin {
		first |= 0x80
	}
	b = append(b, first)
	maskBit := byte(0)
	if key != nil {
		maskBit = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b = append(b, maskBit|byte(n))
	case n <= 0xFFFF:
		b = append(b, maskBit|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, maskBit|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	if key != nil {
		b = append(b, key...)
		start := len(b)
		b = append(b, payload...)
		for i := range payload {
			b[start+i] ^= key[i%4]
		}
		return b
	}
	return append(b, payload...)
}

// pipeConn is a connection whose reads come from a fixed input and whose
// writes are recorded.
type pipeConn struct {
	r io.Reader

	mu     sync.Mutex
	out    bytes.Buffer
	closed bool
}

func newPipeConn(in []byte) *pipeConn { return &pipeConn{r: bytes.NewReader(in)} }

func (p *pipeConn) Read(b []byte) (int, error) { return p.r.Read(b) }

func (p *pipeConn) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	return p.out.Write(b)
}

func (p *pipeConn) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	return nil
}

func (p *pipeConn) written() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.out.Bytes())
}

// readFrames decodes the client's frames from b, unmasking them; it fails
// on an unmasked frame.
func readFrames(b []byte) ([]Opcode, [][]byte, bool) {
	var ops []Opcode
	var payloads [][]byte
	for len(b) > 0 {
		if len(b) < 2 || b[1]&0x80 == 0 {
			return nil, nil, false
		}
		op := Opcode(b[0] & 0x0F)
		n := int(b[1] & 0x7F)
		b = b[2:]
		switch n {
		case 126:
			n = int(binary.BigEndian.Uint16(b))
			b = b[2:]
		case 127:
			n = int(binary.BigEndian.Uint64(b))
			b = b[8:]
		}
		key := b[:4]
		p := bytes.Clone(b[4 : 4+n])
		for i := range p {
			p[i] ^= key[i%4]
		}
		b = b[4+n:]
		ops = append(ops, op)
		payloads = append(payloads, p)
	}
	return ops, payloads, true
}
