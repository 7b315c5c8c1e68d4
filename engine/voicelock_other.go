//go:build !unix

package engine

import "errors"

// LockVoice needs file locks, which this build has only on Unix systems.
func LockVoice(path string) (unlock func(), err error) {
	return nil, errors.New("rfstream: locking a voice file needs a Unix system")
}
