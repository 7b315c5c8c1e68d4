package main

import (
	"io"
	"os"
)

// workLog receives the progress of long steps that are not handed a
// writer of their own (word-vector extraction deep inside a data loader).
// run points it at the command's stderr, so progress goes where the rest
// of the command's log goes, as a bar on a terminal and plain lines
// elsewhere.
var workLog io.Writer = os.Stderr
