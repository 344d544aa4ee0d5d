//go:build !race

package regex

// raceDetector tells tests whose allocation counts rest on a sync.Pool that the race
// detector drops pooled items at random: their counts say nothing there.
const raceDetector = false
