// Package parallel runs independent index-addressed jobs on every core.
//
// It is the one worker pool of the module: each job writes only its own
// slot of a caller's slice, so results keep their input order whatever
// the scheduling.
package parallel
