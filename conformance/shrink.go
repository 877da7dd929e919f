package conformance

import "github.com/simabi/simabi/conformance/op"

// Shrink reduces a failing sequence by delta debugging (chunks, single
// ops, then arguments), keeping every change stillFails still reports true
// for; stillFails(ops) must be true on entry.
func Shrink(ops []op.Op, stillFails func([]op.Op) bool) []op.Op {
	cur := append([]op.Op(nil), ops...)
	without := func(from, to int) []op.Op {
		out := make([]op.Op, 0, len(cur)-(to-from))
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
	// Arguments: each candidate is smaller in some field, so this ends.
	for changed := true; changed; {
		changed = false
		for i := range cur {
			for _, s := range simplifications(cur[i]) {
				cand := append([]op.Op(nil), cur...)
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
func simplifications(cur op.Op) []op.Op {
	var out []op.Op
	try := func(mut func(*op.Op)) {
		c := cur
		mut(&c)
		if c != cur {
			out = append(out, c)
		}
	}
	if cur.Rep > 1 {
		try(func(o *op.Op) { o.Rep = 0 })
		try(func(o *op.Op) { o.Rep /= 2 })
	}
	for _, img := range []*op.ImageRecipe{&cur.Img, &cur.Img2} {
		if img.Base != op.ImgValid {
			continue
		}
		field := func(f func(*op.ImageRecipe)) {
			r := *img
			f(&r)
			if r != *img {
				c := cur
				if img == &cur.Img {
					c.Img = r
				} else {
					c.Img2 = r
				}
				out = append(out, c)
			}
		}
		field(func(r *op.ImageRecipe) { r.X = 0 })
		field(func(r *op.ImageRecipe) { r.B = 0 })
		field(func(r *op.ImageRecipe) { r.B /= 2 })
		field(func(r *op.ImageRecipe) { r.C = 0 })
		field(func(r *op.ImageRecipe) { r.C /= 2 })
		field(func(r *op.ImageRecipe) { r.T = 0 })
		field(func(r *op.ImageRecipe) { r.S = 0 })
		field(func(r *op.ImageRecipe) { r.NoSC = false })
		field(func(r *op.ImageRecipe) { r.Poke, r.PokeOff, r.PokeVal = op.PokeNone, 0, 0 })
		field(func(r *op.ImageRecipe) { r.Long = 0 })
		field(func(r *op.ImageRecipe) { r.Short = 0 })
		field(func(r *op.ImageRecipe) { r.Mis = 0 })
		field(func(r *op.ImageRecipe) { r.Defect = op.DefNone })
	}
	try(func(o *op.Op) { o.Args = op.ArgsRecipe{} })
	try(func(o *op.Op) { o.Spans = [4]op.SpanRecipe{} })
	try(func(o *op.Op) { o.Cfg = op.CfgRecipe{} })
	// Lowered toward their simplest value (an op already there is no variant).
	try(func(o *op.Op) { o.Ms = min(o.Ms, max(o.Ms/2, 20)) })
	try(func(o *op.Op) { o.ID = min(o.ID, 0) })
	try(func(o *op.Op) { o.Dev = min(o.Dev, 0) })
	try(func(o *op.Op) { o.Gen = min(o.Gen, 1) })
	try(func(o *op.Op) { o.Stream = min(o.Stream, 0) })
	try(func(o *op.Op) { o.Count = min(o.Count, 1) })
	return out
}
