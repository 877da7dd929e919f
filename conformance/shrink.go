package conformance

// Shrink reduces a failing sequence by delta debugging: it removes chunks
// (halving their size while none can go), then single ops, then simplifies
// the arguments of each remaining op, keeping every change for which
// stillFails still reports true. stillFails(ops) must be true on entry; the
// result is a sequence it reports true for, no longer than ops.
func Shrink(ops []Op, stillFails func([]Op) bool) []Op {
	cur := append([]Op(nil), ops...)
	without := func(from, to int) []Op {
		out := make([]Op, 0, len(cur)-(to-from))
		return append(append(out, cur[:from]...), cur[to:]...)
	}
	// Chunks.
	for n := 2; len(cur) >= 2; {
		size := (len(cur) + n - 1) / n
		reduced := false
		for from := 0; from < len(cur); from += size {
			cand := without(from, min(from+size, len(cur)))
			if len(cand) > 0 && stillFails(cand) {
				cur, reduced = cand, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if size == 1 {
				break
			}
			n = min(2*n, len(cur))
		}
	}
	// Single ops, to a fixpoint.
	for changed := true; changed; {
		changed = false
		for i := len(cur) - 1; i >= 0 && len(cur) > 1; i-- {
			if cand := without(i, i+1); stillFails(cand) {
				cur, changed = cand, true
			}
		}
	}
	// Arguments. Every candidate is strictly smaller in some field, so this
	// terminates.
	for changed := true; changed; {
		changed = false
		for i := range cur {
			for _, s := range simplifications(cur[i]) {
				cand := append([]Op(nil), cur...)
				cand[i] = s
				if stillFails(cand) {
					cur, changed = cand, true
					break
				}
			}
		}
	}
	return cur
}

// simplifications lists simpler variants of op, each closer to the zero
// value in one field.
func simplifications(op Op) []Op {
	var out []Op
	try := func(mut func(*Op)) {
		c := op
		mut(&c)
		if c != op {
			out = append(out, c)
		}
	}
	if op.Rep > 1 {
		try(func(o *Op) { o.Rep = 0 })
		try(func(o *Op) { o.Rep /= 2 })
	}
	for _, img := range []*ImageRecipe{&op.Img, &op.Img2} {
		if img.Base != ImgValid {
			continue
		}
		field := func(f func(*ImageRecipe)) {
			r := *img
			f(&r)
			if r != *img {
				c := op
				if img == &op.Img {
					c.Img = r
				} else {
					c.Img2 = r
				}
				out = append(out, c)
			}
		}
		field(func(r *ImageRecipe) { r.X = 0 })
		field(func(r *ImageRecipe) { r.B = 0 })
		field(func(r *ImageRecipe) { r.B /= 2 })
		field(func(r *ImageRecipe) { r.C = 0 })
		field(func(r *ImageRecipe) { r.C /= 2 })
		field(func(r *ImageRecipe) { r.T = 0 })
		field(func(r *ImageRecipe) { r.S = 0 })
		field(func(r *ImageRecipe) { r.NoSC = false })
		field(func(r *ImageRecipe) { r.Poke, r.PokeOff, r.PokeVal = PokeNone, 0, 0 })
		field(func(r *ImageRecipe) { r.Long = 0 })
		field(func(r *ImageRecipe) { r.Short = 0 })
		field(func(r *ImageRecipe) { r.Mis = 0 })
		field(func(r *ImageRecipe) { r.Defect = DefNone })
	}
	try(func(o *Op) { o.Args = ArgsRecipe{} })
	try(func(o *Op) { o.Spans = [4]SpanRecipe{} })
	try(func(o *Op) { o.Cfg = CfgRecipe{} })
	if op.Ms > 20 {
		try(func(o *Op) { o.Ms = max(o.Ms/2, 20) })
	}
	if op.ID > 0 {
		try(func(o *Op) { o.ID = 0 })
	}
	if op.Dev > 0 {
		try(func(o *Op) { o.Dev = 0 })
	}
	if op.Gen > 1 {
		try(func(o *Op) { o.Gen = 1 })
	}
	if op.Stream > 0 {
		try(func(o *Op) { o.Stream = 0 })
	}
	if op.Count > 1 {
		try(func(o *Op) { o.Count = 1 })
	}
	return out
}
