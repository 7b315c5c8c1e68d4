//go:build linux

package testproc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary plays three parts, chosen by roleEnv: the test itself, a
// middle process that starts a grandchild and prints its pid, and the
// grandchild, which only sleeps.
const roleEnv = "TESTPROC_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "sleeper":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "middle-testproc", "middle-plain":
		startGrandchild(os.Getenv(roleEnv) == "middle-testproc")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	// Orphans of this test's middle processes become this process's
	// children, so the test sees how they ended and reaps them (a container's
	// init may leave them zombies).
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "prctl(PR_SET_CHILD_SUBREAPER):", errno)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// startGrandchild starts a sleeper, with this package's Command or with
// plain exec.Command, and prints its pid.
func startGrandchild(bound bool) {
	cmd := exec.Command(os.Args[0])
	if bound {
		cmd = Command(os.Args[0])
	}
	cmd.Env = append(os.Environ(), roleEnv+"=sleeper")
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(cmd.Process.Pid)
}

// reap waits up to within for the orphaned grandchild pid (now this
// process's child) to end, and says how it ended; ok is false while it
// still runs.
func reap(pid int, within time.Duration) (ws syscall.WaitStatus, ok bool) {
	for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid || err != nil {
			return ws, err == nil
		}
		if time.Now().After(deadline) {
			return ws, false
		}
	}
}

// killMiddle starts the middle process in the given role, reads its
// grandchild's pid, SIGKILLs the middle process and reaps it.
func killMiddle(t *testing.T, role string) int {
	t.Helper()
	middle := Command(os.Args[0])
	middle.Env = append(os.Environ(), roleEnv+"="+role)
	out, err := middle.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := middle.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		middle.Process.Kill()
		middle.Wait()
		t.Fatalf("middle process said %q (%v, %v)", line, err, perr)
	}
	middle.Process.Signal(syscall.SIGKILL)
	var exit *exec.ExitError
	if err := middle.Wait(); !errors.As(err, &exit) {
		t.Fatalf("middle process: %v, want killed", err)
	}
	return pid
}

func TestGrandchildDiesWithItsKilledParent(t *testing.T) {
	pid := killMiddle(t, "middle-testproc")
	ws, ended := reap(pid, 5*time.Second)
	if !ended {
		syscall.Kill(pid, syscall.SIGKILL)
		reap(pid, 5*time.Second)
		t.Fatalf("grandchild %d still runs 5 s after its parent was killed", pid)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("grandchild ended with %v, want killed by SIGKILL", ws)
	}
}

// The control: started with plain exec.Command, the grandchild outlives
// its killed parent, which is what the test above would miss if
// dieWithParent did nothing.
func TestPlainGrandchildOutlivesItsKilledParent(t *testing.T) {
	pid := killMiddle(t, "middle-plain")
	_, ended := reap(pid, 300*time.Millisecond)
	if !ended {
		syscall.Kill(pid, syscall.SIGKILL)
		reap(pid, 5*time.Second)
	} else {
		t.Fatalf("grandchild %d died with its parent although nothing asked it to", pid)
	}
}
