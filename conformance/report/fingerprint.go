package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// A fingerprint names a finding across reruns of one build: a directed
// check's name, op and detail exactly; a random sequence's rule, op kind and
// detail with numbers and slots masked.

// printOf is the fingerprint of key: 16 hex digits of its SHA-256.
func printOf(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:8])
}

// checkKey is the check's name, or "random" for every random sequence.
func checkKey(check string) string {
	if strings.HasPrefix(check, "random/") || check == "" {
		return "random"
	}
	return check
}

// opKey is the op, or its kind (and program entry) in a random sequence.
func opKey(check string, o op.Op) string {
	if checkKey(check) != "random" {
		return o.String()
	}
	if o.Kind == op.KindProg {
		return "prog fn=" + o.Fn.String()
	}
	return o.Kind.String()
}

var numberRE = regexp.MustCompile(`\b[cs]?-?[0-9]+\b`)

// maskNumbers replaces numbers, context slots (c3) and streams (s1) with #.
func maskNumbers(s string) string { return numberRE.ReplaceAllString(s, "#") }

// findingPrint is the fingerprint of a failure of a run: key (else the
// detail) names what differed.
func findingPrint(fr FindingReport, op op.Op, key string) string {
	detail := cmp.Or(key, fr.Detail)
	site := "-"
	if fr.Index >= 0 {
		site = opKey(fr.Check, op)
	}
	k := fr.Rule + "\x00" + checkKey(fr.Check) + "\x00" + site
	if checkKey(fr.Check) == "random" {
		detail = maskNumbers(detail)
	}
	return printOf(k + "\x00" + detail)
}

// passDetail says what a passing rule's passes are worth.
func passDetail(t [model.NumVerdicts]uint32, generic, runClauses uint32) string {
	var parts []string
	if runClauses > 0 {
		parts = append(parts, strconv.FormatUint(uint64(runClauses), 10)+" checked with a native run outstanding")
	}
	if generic > 0 {
		if generic >= t[model.Pass] {
			parts = append(parts, "passed on the legacy generic -1 only: IS, IA, NR and INTERNAL were not told apart, so this proves less than a pass on a kernel build")
		} else {
			parts = append(parts, strconv.FormatUint(uint64(generic), 10)+" of "+strconv.FormatUint(uint64(t[model.Pass]), 10)+
				" passes saw only the legacy generic -1 (IS, IA, NR and INTERNAL not told apart)")
		}
	}
	if t[model.Skip] > 0 {
		parts = append(parts, strconv.FormatUint(uint64(t[model.Skip]), 10)+" skipped (not applicable to this build or not drivable here)")
	}
	return strings.Join(parts, "; ")
}
