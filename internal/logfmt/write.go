package logfmt

import (
	"bufio"
	"io"
	"strconv"

	"github.com/satmon/satmon/internal/history"
)

// Writer writes actions in the canonical log format that Reader reads.
type Writer struct {
	w   *bufio.Writer
	obj history.Object
	buf []byte
}

// NewWriter starts a log of object obj; param is the object's parameter
// (semaphore capacity, register initial value) or "".
func NewWriter(w io.Writer, obj history.Object, param string) (*Writer, error) {
	lw := &Writer{w: bufio.NewWriterSize(w, 64<<10), obj: obj}
	lw.buf = append(lw.buf[:0], "# @object "...)
	lw.buf = append(lw.buf, obj.String()...)
	if param != "" {
		lw.buf = append(lw.buf, ' ')
		lw.buf = append(lw.buf, param...)
	}
	lw.buf = append(lw.buf, '\n')
	_, err := lw.w.Write(lw.buf)
	return lw, err
}

// MethodName is the spelling the writer uses for method m of object obj:
// push/pop for stacks, enqueue/dequeue for queues, the canonical name
// otherwise.
func MethodName(obj history.Object, m history.Method) string {
	switch {
	case obj == history.Stack && m == history.Add:
		return "push"
	case obj == history.Stack && m == history.Rem:
		return "pop"
	case obj == history.Queue && m == history.Add:
		return "enqueue"
	case obj == history.Queue && m == history.Rem:
		return "dequeue"
	case obj == history.Set && m == history.Rem:
		return "remove"
	case obj == history.StringRegister && m == history.Write:
		return "put"
	case obj == history.StringRegister && m == history.Read:
		return "get"
	}
	return m.String()
}

// AppendAction appends the log line of a (without newline) to dst.
func AppendAction(dst []byte, obj history.Object, a history.Action) []byte {
	return appendAction(dst, "", obj, a)
}

// AppendNamedAction appends the log line of an action of object name in
// a log of named objects ("[ID] call NAME.method(ARGS)").
func AppendNamedAction(dst []byte, name string, obj history.Object, a history.Action) []byte {
	return appendAction(dst, name, obj, a)
}

// AppendDecl appends the declaration of a named object,
// "# @object NAME KIND [PARAM]".
func AppendDecl(dst []byte, name string, obj history.Object, param string) []byte {
	dst = append(dst, "# @object "...)
	dst = append(dst, name...)
	dst = append(dst, ' ')
	dst = append(dst, obj.String()...)
	if param != "" {
		dst = append(dst, ' ')
		dst = append(dst, param...)
	}
	return dst
}

func appendAction(dst []byte, name string, obj history.Object, a history.Action) []byte {
	dst = append(dst, '[')
	dst = append(dst, a.ID...)
	dst = append(dst, ']', ' ')
	l := a.Label
	if a.Kind == history.Call {
		dst = append(dst, "call "...)
		if name != "" {
			dst = append(dst, name...)
			dst = append(dst, '.')
		}
		dst = append(dst, MethodName(obj, l.Method)...)
		if l.Arg != history.Void {
			dst = append(dst, '(')
			if l.Method == history.CAS {
				dst = append(dst, l.Old...)
				dst = append(dst, ", "...)
			}
			dst = append(dst, l.Arg...)
			if obj == history.PQueue && l.Method == history.Add {
				dst = append(dst, ", "...)
				dst = strconv.AppendInt(dst, l.Prio, 10)
			}
			dst = append(dst, ')')
		}
		return dst
	}
	dst = append(dst, "return"...)
	if l.Ret != history.Void {
		dst = append(dst, ' ')
		dst = append(dst, l.Ret...)
	}
	return dst
}

// Write writes one action.
func (lw *Writer) Write(a history.Action) error {
	lw.buf = AppendAction(lw.buf[:0], lw.obj, a)
	lw.buf = append(lw.buf, '\n')
	_, err := lw.w.Write(lw.buf)
	return err
}

// Flush writes any buffered data to the underlying writer.
func (lw *Writer) Flush() error { return lw.w.Flush() }

// AppendCrash appends the line "[ID] crash" (without newline) to dst: the
// open operation ID will never return (docs/format.md, "Crashed
// operations"). It reads the same in a log of named objects.
func AppendCrash(dst []byte, id string) []byte {
	dst = append(dst, '[')
	dst = append(dst, id...)
	return append(dst, "] crash"...)
}

// WriteCrash writes that the open operation id crashed: it will never
// return, and may take effect once at any later time, or never.
func (lw *Writer) WriteCrash(id string) error {
	lw.buf = AppendCrash(lw.buf[:0], id)
	lw.buf = append(lw.buf, '\n')
	_, err := lw.w.Write(lw.buf)
	return err
}
