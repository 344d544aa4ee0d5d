//go:build race

package core

// largest is the size of the largest arguments TestApplicatorWorkIsLinear builds: the race
// detector makes validating them many times slower, and the slope shows at 256 KB.
const largest = 256 << 10
