package encode

// test returns e's test switches (hooks.go), made on first use: the
// production encoder carries none.
func (e *Encoder) test() *hooks {
	if e.hk == nil {
		e.hk = new(hooks)
	}
	return e.hk
}
