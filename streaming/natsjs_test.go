package streaming

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/rfstream/rfstream/internal/nodeclients"
	"github.com/rfstream/rfstream/internal/testproc"
)

// natsJSClient is a client written against nats.js's documented API, not
// this package: it pings $SRV.PING and gathers the answers for a second,
// asks the tagger's INFO, then requests the tags of the image file on the
// tag subject, and prints what it got as one JSON line.
const natsJSClient = `
const { connect } = require("@nats-io/transport-node");
const fs = require("node:fs");
(async () => {
  const [port, pipeline, image] = process.argv.slice(2);
  const nc = await connect({ servers: "127.0.0.1:" + port });
  const inbox = "_INBOX.natsjs" + Date.now();
  const pings = [];
  const sub = nc.subscribe(inbox);
  (async () => { for await (const m of sub) pings.push(m.json()); })();
  nc.publish("$SRV.PING", "", { reply: inbox });
  await new Promise((r) => setTimeout(r, 1000));
  sub.unsubscribe();
  const info = (await nc.request("$SRV.INFO.rfstream-tagger", "", { timeout: 5000 })).json();
  const reply = await nc.request("rfs.v1." + pipeline + ".tag", fs.readFileSync(image), { timeout: 5000 });
  console.log(JSON.stringify({ pings, info, tags: reply.json() }));
  await nc.close();
})().catch((e) => { console.error(String(e)); process.exit(1); });
`

// nodeClients returns node and where nats.js is installed, or skips
// without node.
func nodeClients(t *testing.T) (node, modules string) {
	t.Helper()
	return nodeclients.NatsJS(t, "the nats.js test needs Node.js")
}

// A third-party client, nats.js from npm, finds every stage by $SRV.PING,
// reads the tagger's endpoints by $SRV.INFO, and has a PNG tagged by one
// request, with the tags the tagger gives in process.
func TestNatsJSDiscoversStagesAndTagsAnImage(t *testing.T) {
	node, modules := nodeClients(t)
	srv, _, _ := pipeline(t, true)
	_, tagger := toys(t)
	raw, _ := barImages(t, 2)
	file := pngOf(t, raw[1], 8, 8)
	want, err := tagger.TagImage(file, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, image := filepath.Join(dir, "client.cjs"), filepath.Join(dir, "bars.png")
	os.WriteFile(script, []byte(natsJSClient), 0o600)
	os.WriteFile(image, file, 0o600)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := testproc.CommandContext(ctx, node, script, strconv.Itoa(srv.Addr().(*net.TCPAddr).Port), "toy", image)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("nats.js client: %v\n%s%s", err, out, stderr)
	}
	var got struct {
		Pings []micro.Ping `json:"pings"`
		Info  micro.Info   `json:"info"`
		Tags  TagsMessage  `json:"tags"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("nats.js client printed %q: %v", out, err)
	}
	var names []string
	for _, p := range got.Pings {
		if p.Type != micro.PingResponseType {
			t.Fatalf("ping reply %+v", p)
		}
		names = append(names, p.Name)
	}
	sort.Strings(names)
	if wantNames := []string{ServiceName(StageDecoder), ServiceName(StageFeatures), ServiceName(StageFrontend), ServiceName(StageTagger)}; !slices.Equal(names, wantNames) {
		t.Fatalf("nats.js heard %v on $SRV.PING, want %v", names, wantNames)
	}
	var subjects []string
	for _, e := range got.Info.Endpoints {
		subjects = append(subjects, e.Subject)
	}
	sort.Strings(subjects)
	if !slices.Equal(subjects, []string{Wildcard("toy", KindImage), TagSubject("toy"), ClientTagSubject("toy", "*")}) {
		t.Fatalf("nats.js read the tagger's endpoints %v", subjects)
	}
	if got.Tags.Error != "" || !sameTags(got.Tags.Tags, want) {
		t.Fatalf("nats.js tag request: %+v, in process %+v", got.Tags, want)
	}
}

// natsJSConfined is a confined client in nats.js: with its user and
// password from the environment and its own inbox prefix it has an image
// tagged by request and by its own image stream, then tries to read bob's
// tags and to publish an image on bob's stream, and prints what happened.
const natsJSConfined = `
const { connect, headers } = require("@nats-io/transport-node");
const fs = require("node:fs");
(async () => {
  const [port, image] = process.argv.slice(2);
  const nc = await connect({ servers: "127.0.0.1:" + port, user: process.env.RFS_USER, pass: process.env.RFS_PASS, inboxPrefix: "_INBOX." + process.env.RFS_USER });
  const png = fs.readFileSync(image);
  const requested = (await nc.request("rfs.v1.toy.tag." + process.env.RFS_USER, png, { timeout: 5000 })).json();
  const mine = nc.subscribe("rfs.v1.toy.tags.alice.s1", { max: 1 });
  const h = headers();
  h.set("Rfs-Seq", "0");
  nc.publish("rfs.v1.toy.image.alice.s1", png, { headers: h });
  let streamed;
  for await (const m of mine) streamed = m.json();
  let denied = "";
  const theirs = nc.subscribe("rfs.v1.toy.tags.bob.*");
  try { for await (const m of theirs) denied = "received " + m.subject; } catch (e) { denied = String(e); }
  nc.publish("rfs.v1.toy.image.bob.s1", png, { headers: h });
  await nc.flush();
  console.log(JSON.stringify({ requested, streamed, denied }));
  await nc.close();
})().catch((e) => { console.error(String(e)); process.exit(1); });
`

// nats.js as a client of a clients file (docs/streaming.md, "Trust
// boundary") works in its namespace with the documented inbox prefix, and
// the server refuses it bob's tags and bob's stream: bob, listening on his
// stream's tags, receives nothing.
func TestNatsJSClientIsConfinedToItsNamespace(t *testing.T) {
	node, modules := nodeClients(t)
	_, images := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{Listen: true, Auth: &Auth{Pipeline: "toy",
		Clients: []Client{{Name: "alice", Password: "al"}, {Name: "bob", Password: "bo"}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	stages, err := srv.Connect("stages")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stages.Close)
	st, err := Start(stages, Pipeline{Name: "toy", Images: images, TopK: 2}, StageTagger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bob, err := nats.Connect(srv.ClientURL(), nats.UserInfo("bob", "bo"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bob.Close)
	bobs := subscribe(t, bob, Subject("toy", KindTags, "bob.s1"))

	raw, _ := barImages(t, 1)
	file := pngOf(t, raw[0], 8, 8)
	want, err := images.TagImage(file, 2)
	if err != nil {
		t.Fatal(err)
	}
	image := filepath.Join(t.TempDir(), "bars.png")
	os.WriteFile(image, file, 0o600)
	script := filepath.Join(t.TempDir(), "confined.cjs")
	os.WriteFile(script, []byte(natsJSConfined), 0o600)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := testproc.CommandContext(ctx, node, script, strconv.Itoa(srv.Addr().(*net.TCPAddr).Port), image)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "RFS_USER=alice", "RFS_PASS=al")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nats.js client: %v\n%s", err, out)
	}
	var got struct {
		Requested, Streamed TagsMessage
		Denied              string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("nats.js client printed %q: %v", out, err)
	}
	if !sameTags(got.Requested.Tags, want) || !sameTags(got.Streamed.Tags, want) {
		t.Fatalf("alice's tags by request %+v and by her stream %+v, want %+v", got.Requested, got.Streamed, want)
	}
	if !strings.Contains(got.Denied, "Permissions Violation for Subscription") {
		t.Fatalf("alice subscribing to bob's tags: %q, want a permissions violation", got.Denied)
	}
	bob.Flush()
	select {
	case m := <-bobs:
		t.Fatalf("alice's image reached bob's stream: %q", m.Data)
	case <-time.After(200 * time.Millisecond):
	}
}
