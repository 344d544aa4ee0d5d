//go:build race

package soak

// raceSlowdown divides the soak's sessions under the race detector, which makes each many
// times slower.
const raceSlowdown = 8
