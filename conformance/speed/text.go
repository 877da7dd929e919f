package speed

// NsText is a time in nanoseconds as the table prints it (three
// significant digits: "41ns", "1.23µs"); the HTML report's table uses it.
func NsText(ns float64) string { return nsText(ns) }

// CIText is a ratio with its interval as the table prints it
// ("1.13 [1.12, 1.14]").
func CIText(x, lo, hi float64) string { return ciText(x, lo, hi) }
