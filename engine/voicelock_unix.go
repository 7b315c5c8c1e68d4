//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"syscall"
)

// LockVoice takes an exclusive lock on the voice file at path (on path
// with ".lock" added, which it creates), waiting while another process or
// goroutine holds it, so that two teachings of one voice read, change and
// write its file one after the other instead of one losing the other's
// words. The lock is released by unlock, or when the process ends.
func LockVoice(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
