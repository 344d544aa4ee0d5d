//go:build race

package guard

// largest is the size of the largest arguments TestApplicatorWorkIsLinear builds, and scales
// the calls of TestConcurrentCountsSurviveRetiredNames: the race detector makes them many times
// slower, and the slope shows at 256 KB.
const largest = 256 << 10

// raceDetector tells tests whose allocation counts rest on a sync.Pool that the race
// detector drops pooled items at random: their counts say nothing there.
const raceDetector = true
