//go:build race

package conformance

// hostileScale divides, under the race detector, which makes validating many times
// slower, the sizes of the largest inputs of the hostile tests and the number of calls of
// TestHostileLoad.
const hostileScale = 10
