package kubeletstub

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Builtins is the default RunFunc. It knows these commands:
//
//	echo ARGS…          ARGS joined by spaces, and a newline, on stdout
//	report OUT ERR CODE OUT on stdout, ERR on stderr, then exit with CODE
//	cat                 stdin copied to stdout until it ends
//	burst N             N bytes (a repeating pattern) on stdout
//	sizes N             each of the next N terminal sizes as "WxH\n" on stdout
//	hang-up             "bye\n" on stdout, then the stream is dropped
//	wait                nothing, until the stream ends
//
// An attach behaves like cat when stdin is attached, like wait otherwise.
// Another command exits with code 127.
func Builtins(ctx context.Context, p *Process) error {
	args := p.Command
	if p.Attach {
		args = []string{"wait"}
		if p.Stdin != nil {
			args = []string{"cat"}
		}
	}
	if len(args) == 0 {
		return ExitCode(127)
	}
	out, errOut := p.Stdout, p.Stderr
	if out == nil {
		out = io.Discard
	}
	if errOut == nil {
		errOut = io.Discard
	}
	switch args[0] {
	case "echo":
		_, err := fmt.Fprintln(out, strings.Join(args[1:], " "))
		return err
	case "report":
		if len(args) != 4 {
			return ExitCode(2)
		}
		code, err := strconv.Atoi(args[3])
		if err != nil {
			return ExitCode(2)
		}
		if _, err := io.WriteString(out, args[1]); err != nil {
			return err
		}
		if _, err := io.WriteString(errOut, args[2]); err != nil {
			return err
		}
		if code != 0 {
			return ExitCode(code)
		}
		return nil
	case "cat":
		if p.Stdin == nil {
			return nil
		}
		_, err := io.Copy(out, p.Stdin)
		return err
	case "burst":
		n, err := strconv.ParseInt(argAt(args, 1), 10, 64)
		if err != nil || n < 0 {
			return ExitCode(2)
		}
		return burst(out, n)
	case "sizes":
		n, err := strconv.Atoi(argAt(args, 1))
		if err != nil || p.Resize == nil {
			return ExitCode(2)
		}
		for range n {
			select {
			case size, ok := <-p.Resize:
				if !ok {
					return ExitCode(1)
				}
				if _, err := fmt.Fprintf(out, "%dx%d\n", size.Width, size.Height); err != nil {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	case "hang-up":
		if _, err := io.WriteString(out, "bye\n"); err != nil {
			return err
		}
		return ErrHangUp
	case "wait":
		<-ctx.Done()
		return ctx.Err()
	}
	return ExitCode(127)
}

func argAt(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

// Pattern returns the byte at offset i of the output of "burst": tests
// check what they received with it.
func Pattern(i int64) byte { return byte('a' + i%26) }

func burst(w io.Writer, n int64) error {
	buf := make([]byte, 32<<10)
	for i := range buf {
		buf[i] = Pattern(int64(i))
	}
	// The pattern repeats every 26 bytes: each write starts at the
	// place in the buffer with the right phase.
	var off int64
	for off < n {
		start := off % 26
		m := min(int64(len(buf))-start, n-off)
		if _, err := w.Write(buf[start : start+m]); err != nil {
			return err
		}
		off += m
	}
	return nil
}
