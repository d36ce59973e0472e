package logfmt

// setNoFast makes r read every line by the general path (hooks.noFast).
func (r *Reader) setNoFast(on bool) {
	if r.hk == nil {
		r.hk = new(hooks)
	}
	r.hk.noFast = on
}
