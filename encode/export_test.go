package encode

// test returns e's test switches (hooks.go), made on first use: the
// production encoder carries none.
func (e *Encoder) test() *hooks {
	if e.hk == nil {
		e.hk = new(hooks)
		if e.lazy != nil {
			e.lazy.hk = e.hk
			e.lazy.w.hk = e.hk
		}
	}
	return e.hk
}

// watches returns e's watched instances, empty without a lazy grounding.
func (e *Encoder) watches() *watchState {
	if e.lazy == nil {
		return new(watchState)
	}
	return &e.lazy.w
}

// setNoQuick sets the noQuick hook and the grounder's shortcuts with it.
func (e *Encoder) setNoQuick(on bool) {
	e.test().noQuick = on
	e.enum.setQuick()
}
