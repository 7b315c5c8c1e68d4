package streaming

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/rfstream/rfstream/internal/toymodels"
)

// The docs show a tag request made with the NATS CLI. The form that puts
// the file in an argument, "$(cat x.png)", cannot work: the shell drops
// a PNG's NUL bytes. The documented form sends the file on standard
// input; the CLI is not on the project machines (nor in Debian), so this
// test does what it does with such a command line: the redirected file's
// bytes, unchanged, as the request's body.
func TestDocumentedTagRequestsWork(t *testing.T) {
	var docs []byte
	for _, f := range []string{"../README.md", "../docs/commands.md", "../docs/streaming.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"$(cat`)) {
			t.Errorf("%s passes a file through \"$(cat ...)\", which loses its NUL bytes", f)
		}
		docs = append(docs, b...)
	}
	forms := regexp.MustCompile("`nats req(?:uest)? (rfs\\.v1\\.rfs\\.tag) < (\\S+\\.png)`").FindAllSubmatch(docs, -1)
	if len(forms) == 0 {
		t.Fatal("the docs show no `nats request rfs.v1.rfs.tag < x.png`")
	}
	_, images := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("docs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := Start(nc, Pipeline{Name: "rfs", Images: images, TopK: 2}, StageTagger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	px := make([]byte, 64)
	for i, v := range toymodels.Bars(0, 3) {
		px[i] = byte(255 * v)
	}
	png := pngOf(t, px, 8, 8)
	if !bytes.Contains(png, []byte{0}) {
		t.Fatal("the test image has no NUL byte to lose")
	}
	dir := t.TempDir()
	for _, m := range forms {
		subject, file := string(m[1]), filepath.Join(dir, string(m[2]))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		// What the shell hands the CLI for "< x.png": the file itself.
		in, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(in)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		reply, err := nc.Request(subject, body, 5*time.Second)
		if err != nil {
			t.Fatalf("nats request %s < %s: %v", subject, m[2], err)
		}
		var got TagsMessage
		if err := json.Unmarshal(reply.Data, &got); err != nil || got.Error != "" || len(got.Tags) == 0 {
			t.Fatalf("nats request %s < %s: %s (%v)", subject, m[2], reply.Data, err)
		}
		// And why the other form was dropped, where a shell is at hand.
		if sh, err := exec.LookPath("sh"); err == nil {
			out, err := exec.Command(sh, "-c", `printf %s "$(cat "$1")"`, "sh", file).Output()
			if err == nil && bytes.Equal(out, png) {
				t.Fatalf("the shell kept the PNG's NUL bytes through \"$(cat ...)\"; the docs' reason is wrong")
			}
		}
	}
}
