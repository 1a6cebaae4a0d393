package websocket

import (
	"bufio"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
)

// Opcode is the type of a frame (RFC 6455 section 5.2).
type Opcode byte

// The opcodes of RFC 6455.
const (
	OpContinuation Opcode = 0x0
	OpText         Opcode = 0x1
	OpBinary       Opcode = 0x2
	OpClose        Opcode = 0x8
	OpPing         Opcode = 0x9
	OpPong         Opcode = 0xA
)

// Close codes this package sends or recognises (RFC 6455 section 7.4.1).
const (
	CloseNormal      = 1000
	CloseGoingAway   = 1001
	CloseProtocol    = 1002
	CloseNoStatus    = 1005
	CloseMessageSize = 1009
)

const maxControlPayload = 125

// ErrProtocol is wrapped by every error about a frame the server should not
// have sent: a masked frame, reserved bits or opcodes, a control frame that
// is fragmented or too long, a continuation out of place, a bad length.
// After it the Conn cannot be read any more.
var ErrProtocol = errors.New("websocket: protocol error")

// CloseError is returned by NextReader (and a message's reader) once the
// server has sent a close frame. The Conn has answered it; the caller closes
// the Conn.
type CloseError struct {
	// Code is the status code of the close frame, CloseNoStatus when it
	// carried none.
	Code int
	// Reason is the text of the close frame, if any.
	Reason string
}

func (e *CloseError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("websocket: closed by the server (%d)", e.Code)
	}
	return fmt.Sprintf("websocket: closed by the server (%d): %s", e.Code, e.Reason)
}

// Normal reports whether the server closed cleanly: code 1000 or none.
func (e *CloseError) Normal() bool { return e.Code == CloseNormal || e.Code == CloseNoStatus }

// Conn is the client end of a WebSocket connection. One goroutine may read
// (NextReader and the reader it returns) while others write: WriteMessage
// and Close are safe for concurrent use.
type Conn struct {
	rw io.ReadWriteCloser
	br *bufio.Reader

	// Reader state, owned by the reading goroutine.
	remaining int64  // payload bytes left in the current data frame
	final     bool   // the current data frame ends its message
	inMessage bool   // a data message is being read
	seq       uint64 // counts messages; a stale reader sees io.EOF
	readErr   error  // sticky: once set every read returns it
	ctrl      [maxControlPayload]byte

	wmu       sync.Mutex
	wbuf      []byte
	rng       *rand.ChaCha8
	closeSent bool // guarded by wmu
	closed    atomic.Bool
	once      sync.Once
}

// NewConn wraps an upgraded connection. The Conn owns rw from now on and
// closes it in Close.
func NewConn(rw io.ReadWriteCloser) *Conn {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // crypto/rand.Read never fails on supported platforms
	return &Conn{rw: rw, br: bufio.NewReaderSize(rw, 32<<10), rng: rand.NewChaCha8(seed)}
}

// header is a frame header as read.
type header struct {
	fin    bool
	op     Opcode
	length int64
}

func (c *Conn) fail(err error) error {
	if c.readErr == nil {
		c.readErr = err
	}
	return c.readErr
}

// readHeader reads one frame header and checks what RFC 6455 requires of a
// server's frame.
func (c *Conn) readHeader() (header, error) {
	var b [2]byte
	if _, err := io.ReadFull(c.br, b[:]); err != nil {
		return header{}, c.fail(unexpectedEOF(err))
	}
	h := header{fin: b[0]&0x80 != 0, op: Opcode(b[0] & 0x0F)}
	if b[0]&0x70 != 0 {
		return h, c.fail(fmt.Errorf("%w: reserved bits set without an extension", ErrProtocol))
	}
	if b[1]&0x80 != 0 {
		return h, c.fail(fmt.Errorf("%w: the server masked a frame", ErrProtocol))
	}
	switch n := b[1] & 0x7F; n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(c.br, ext[:]); err != nil {
			return h, c.fail(unexpectedEOF(err))
		}
		h.length = int64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		var ext [8]byte
		if _, err := io.ReadFull(c.br, ext[:]); err != nil {
			return h, c.fail(unexpectedEOF(err))
		}
		l := binary.BigEndian.Uint64(ext[:])
		if l>>63 != 0 {
			return h, c.fail(fmt.Errorf("%w: frame length has its top bit set", ErrProtocol))
		}
		h.length = int64(l)
	default:
		h.length = int64(n)
	}
	switch h.op {
	case OpContinuation, OpText, OpBinary:
	case OpClose, OpPing, OpPong:
		if !h.fin {
			return h, c.fail(fmt.Errorf("%w: fragmented control frame", ErrProtocol))
		}
		if h.length > maxControlPayload {
			return h, c.fail(fmt.Errorf("%w: control frame of %d bytes", ErrProtocol, h.length))
		}
	default:
		return h, c.fail(fmt.Errorf("%w: reserved opcode %#x", ErrProtocol, byte(h.op)))
	}
	return h, nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// control handles a control frame: a ping is answered, a pong ignored, a
// close answered and turned into a *CloseError.
func (c *Conn) control(h header) error {
	p := c.ctrl[:h.length]
	if _, err := io.ReadFull(c.br, p); err != nil {
		return c.fail(unexpectedEOF(err))
	}
	switch h.op {
	case OpPing:
		if err := c.WriteMessage(OpPong, p); err != nil && !errors.Is(err, net.ErrClosed) {
			return c.fail(err)
		}
	case OpClose:
		ce := &CloseError{Code: CloseNoStatus}
		switch {
		case len(p) == 1:
			return c.fail(fmt.Errorf("%w: close frame of one byte", ErrProtocol))
		case len(p) >= 2:
			ce.Code = int(binary.BigEndian.Uint16(p))
			ce.Reason = string(p[2:])
		}
		reply := CloseNormal
		if ce.Code != CloseNoStatus {
			reply = ce.Code
		}
		c.writeClose(reply)
		return c.fail(ce)
	}
	return nil
}

// NextReader returns the type of the next data message and a reader over
// its payload. What is left unread of the previous message is skipped.
// The reader is valid until the next call of NextReader; it returns io.EOF
// at the end of the message. Control frames are handled on the way. Once
// the server closes, NextReader returns a *CloseError; after any error the
// same error is returned again.
func (c *Conn) NextReader() (Opcode, io.Reader, error) {
	if c.readErr != nil {
		return 0, nil, c.readErr
	}
	if c.inMessage {
		if _, err := io.Copy(io.Discard, &messageReader{c: c, seq: c.seq}); err != nil {
			return 0, nil, err
		}
	}
	for {
		h, err := c.readHeader()
		if err != nil {
			return 0, nil, err
		}
		switch h.op {
		case OpClose, OpPing, OpPong:
			if err := c.control(h); err != nil {
				return 0, nil, err
			}
			continue
		case OpContinuation:
			return 0, nil, c.fail(fmt.Errorf("%w: continuation frame outside a message", ErrProtocol))
		}
		c.seq++
		c.inMessage, c.remaining, c.final = true, h.length, h.fin
		return h.op, &messageReader{c: c, seq: c.seq}, nil
	}
}

// messageReader reads the payload of one data message across its frames.
type messageReader struct {
	c   *Conn
	seq uint64
}

func (r *messageReader) Read(p []byte) (int, error) {
	c := r.c
	if r.seq != c.seq || !c.inMessage {
		return 0, io.EOF
	}
	if c.readErr != nil {
		return 0, c.readErr
	}
	for c.remaining == 0 {
		if c.final {
			c.inMessage = false
			return 0, io.EOF
		}
		h, err := c.readHeader()
		if err != nil {
			return 0, err
		}
		switch h.op {
		case OpClose, OpPing, OpPong:
			if err := c.control(h); err != nil {
				return 0, err
			}
			continue
		case OpContinuation:
			c.remaining, c.final = h.length, h.fin
		default:
			return 0, c.fail(fmt.Errorf("%w: new message inside a fragmented one", ErrProtocol))
		}
	}
	if int64(len(p)) > c.remaining {
		p = p[:c.remaining]
	}
	n, err := c.br.Read(p)
	c.remaining -= int64(n)
	if err != nil {
		return n, c.fail(unexpectedEOF(err))
	}
	return n, nil
}

// maxKeptBuffer is the largest write buffer kept between messages.
const maxKeptBuffer = 64 << 10

// WriteMessage sends one frame of type op whose payload is parts joined,
// masked as a client must. It is safe for concurrent use; messages are
// never interleaved. After Close it returns net.ErrClosed.
func (c *Conn) WriteMessage(op Opcode, parts ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeLocked(op, parts...)
}

func (c *Conn) writeLocked(op Opcode, parts ...[]byte) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	buf := c.wbuf[:0]
	buf = append(buf, 0x80|byte(op))
	switch {
	case n < 126:
		buf = append(buf, 0x80|byte(n))
	case n <= 0xFFFF:
		buf = append(buf, 0x80|126)
		buf = binary.BigEndian.AppendUint16(buf, uint16(n))
	default:
		buf = append(buf, 0x80|127)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n))
	}
	var key [4]byte
	binary.LittleEndian.PutUint32(key[:], uint32(c.rng.Uint64()))
	buf = append(buf, key[:]...)
	start := len(buf)
	for _, p := range parts {
		buf = append(buf, p...)
	}
	maskBytes(key, buf[start:])
	_, err := c.rw.Write(buf)
	if cap(buf) <= maxKeptBuffer {
		c.wbuf = buf[:0]
	} else {
		c.wbuf = nil
	}
	return err
}

// maskBytes XORs b with the repeated key, eight bytes at a time.
func maskBytes(key [4]byte, b []byte) {
	k32 := binary.LittleEndian.Uint32(key[:])
	k64 := uint64(k32) | uint64(k32)<<32
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])^k64)
	}
	for ; i < len(b); i++ {
		b[i] ^= key[i&3]
	}
}

// writeClose sends a close frame with code unless a write is in progress
// (Close must not wait behind a stuck write).
func (c *Conn) writeClose(code int) {
	if !c.wmu.TryLock() {
		return
	}
	defer c.wmu.Unlock()
	if c.closeSent {
		return
	}
	c.closeSent = true
	var p [2]byte
	binary.BigEndian.PutUint16(p[:], uint16(code))
	_ = c.writeLocked(OpClose, p[:])
}

// Close sends a normal close frame (unless a write is blocked) and closes
// the connection. Reads and writes in progress return errors. It may be
// called more than once and from any goroutine.
func (c *Conn) Close() error {
	var err error
	c.once.Do(func() {
		c.writeClose(CloseNormal)
		c.closed.Store(true)
		err = c.rw.Close()
	})
	return err
}
