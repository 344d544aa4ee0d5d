//go:build !race

package conformance

// hostileScale divides the sizes of the largest inputs of TestHostileValuesAgreeWithOracle:
// the race detector makes validating them, and the oracle, many times slower.
const hostileScale = 1
