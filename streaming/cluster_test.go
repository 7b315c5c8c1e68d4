package streaming

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// startCluster starts n embedded servers on loopback joined by routes to
// the first one, and waits until every node has routes to all others.
func startCluster(t *testing.T, n int) []*server.Server {
	t.Helper()
	var nodes []*server.Server
	for i := 0; i < n; i++ {
		o := &server.Options{
			ServerName: "node" + strconv.Itoa(i),
			Host:       "127.0.0.1", Port: server.RANDOM_PORT,
			NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "rfs-test", Host: "127.0.0.1", Port: server.RANDOM_PORT, PoolSize: -1},
		}
		if i > 0 {
			o.Routes = server.RoutesFromStr(fmt.Sprintf("nats://%s", nodes[0].ClusterAddr().String()))
		}
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("cluster node not ready")
		}
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		nodes = append(nodes, s)
	}
	waitFor(t, "full mesh of routes", func() bool {
		for _, s := range nodes {
			if s.NumRoutes() != n-1 {
				return false
			}
		}
		return true
	})
	return nodes
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitInterest waits until every node knows of at least n subscriptions
// (local or across routes) matching subject.
func waitInterest(t *testing.T, nodes []*server.Server, subject string, n int) {
	t.Helper()
	waitFor(t, "interest in "+subject, func() bool {
		for _, s := range nodes {
			if s.GlobalAccount().Interest(subject) < n {
				return false
			}
		}
		return true
	})
}

func connectTo(t *testing.T, s *server.Server, name string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), nats.Name(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// downUp is UpDown with the words the other way round.
func downUp() []float32 {
	var x []float32
	x = append(x, toymodels.Noise(3000, 5)...)
	x = append(x, toymodels.Glide(1400, 450, 0.38, 91)...)
	x = append(x, toymodels.Noise(4400, 6)...)
	x = append(x, toymodels.Glide(450, 1400, 0.42, 92)...)
	return append(x, toymodels.Noise(4000, 7)...)
}

// TestThreeNodeClusterEqualsOneWorker runs pipeline "one" with a single
// features worker and pipeline "three" with a worker on each of three
// routed servers, clients on the other nodes: every stream's results equal
// the in-process recogniser's, so three workers give what one gives.
func TestThreeNodeClusterEqualsOneWorker(t *testing.T) {
	words, images := toys(t)
	nodes := startCluster(t, 3)
	var three []*Stages
	for name, layout := range map[string][][]string{
		"one":   {{StageFrontend, StageDecoder, StageFeatures}},
		"three": {{StageFrontend, StageDecoder, StageFeatures, StageTagger}, {StageFeatures, StageTagger}, {StageFeatures, StageTagger}},
	} {
		for i, stages := range layout {
			st, err := Start(connectTo(t, nodes[i], name+strconv.Itoa(i)), Pipeline{Name: name, Words: words, Images: images, TopK: 2}, stages...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			if name == "three" {
				three = append(three, st)
			}
		}
	}
	for _, name := range []string{"one", "three"} {
		waitInterest(t, nodes, Subject(name, KindPCM, "x"), 1)
		waitInterest(t, nodes, Subject(name, KindScores, "x"), 1)
	}
	waitInterest(t, nodes, Subject("one", KindVector, "x"), 1)
	waitInterest(t, nodes, Subject("three", KindVector, "x"), 3)
	waitInterest(t, nodes, Subject("three", KindImage, "x"), 3)

	audio := [][]float32{toymodels.UpDown(), downUp()}
	want := make([][]engine.Result, len(audio))
	for i, x := range audio {
		want[i] = inProcess(t, &frontend.Audio{Rate: 8000, Samples: x})
	}
	if a, b := want[0][len(want[0])-1].Text, want[1][len(want[1])-1].Text; a != "up down" || b != "down up" {
		t.Fatalf("in-process recogniser says %q and %q", a, b)
	}
	clients := []*nats.Conn{connectTo(t, nodes[1], "client1"), connectTo(t, nodes[2], "client2")}
	got := map[string][]engine.Result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	const streams = 12
	for _, pipe := range []string{"one", "three"} {
		for i := 0; i < streams; i++ {
			wg.Add(1)
			go func(pipe string, i int) {
				defer wg.Done()
				var res []engine.Result
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err := StreamAudio(ctx, clients[i%2], pipe, "s"+strconv.Itoa(i), &frontend.Audio{Rate: 8000, Samples: audio[i%2]},
					StreamOptions{Encoding: EncF32, ChunkMs: 50}, func(r engine.Result) { res = append(res, r) })
				if err != nil {
					t.Error(pipe, i, err)
				}
				mu.Lock()
				got[pipe+strconv.Itoa(i)] = res
				mu.Unlock()
			}(pipe, i)
		}
	}
	wg.Wait()
	for i := 0; i < streams; i++ {
		one, three := got["one"+strconv.Itoa(i)], got["three"+strconv.Itoa(i)]
		if !sameResults(one, want[i%2]) || !sameResults(three, one) {
			t.Fatalf("stream %d: one worker\n%+v\nthree workers\n%+v\nin-process\n%+v", i, one, three, want[i%2])
		}
	}
	for i, st := range three {
		if st.Stats().Vectors == 0 {
			t.Errorf("features worker on node %d scored nothing: the queue group did not spread the work", i)
		}
	}

	// Images: three taggers in the queue group, the client on the third node.
	_, tagger := toys(t)
	raw := make([][]byte, 60)
	x := linalg.NewGeneral32(len(raw), 64)
	for i := range raw {
		px := toymodels.Bars(i%2, i%8)
		raw[i] = make([]byte, 64)
		for j, v := range px {
			raw[i][j] = byte(255 * v)
			x.Data[i*64+j] = float32(raw[i][j]) / 255
		}
	}
	wantTags, err := tagger.TagRows(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := TagImages(context.Background(), clients[1], "three", "imgs", raw, true, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tags {
		if tags[i].Error != "" || !sameTags(tags[i].Tags, wantTags[i]) {
			t.Fatalf("image %d: cluster %+v, in-process %+v", i, tags[i], wantTags[i])
		}
	}
}

func sameTags(a, b []engine.Tag) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Label != b[i].Label || a[i].Score-b[i].Score > 1e-6 || b[i].Score-a[i].Score > 1e-6 {
			return false
		}
	}
	return true
}
