//go:build race

package core

// largest is the size of the largest arguments TestApplicatorWorkIsLinear builds, and scales
// the calls of TestConcurrentCountsSurviveRetiredNames: the race detector makes them many times
// slower, and the slope shows at 256 KB.
const largest = 256 << 10
