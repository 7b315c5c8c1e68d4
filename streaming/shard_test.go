package streaming

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
)

// The shard rule is the documented one (FNV-1a of the stream's first
// token, modulo the shards), so a stage written in another language can
// agree with it; the values were worked out apart from Go's hash/fnv.
func TestShardOfIsFNV1aOfTheFirstToken(t *testing.T) {
	for _, c := range []struct {
		stream        string
		shards, shard int
	}{
		{"alice", 3, 2}, {"alice", 4, 3}, {"bob", 3, 2}, {"bob", 4, 0},
		{"s1", 3, 0}, {"s1", 4, 1}, {"george", 3, 1}, {"cli-1-2", 3, 2},
		{"alice.s1", 4, 3}, {"george.x.y", 3, 1}, {"bob", 1, 0}, {"bob", 0, 0},
	} {
		if got := ShardOf(c.stream, c.shards); got != c.shard {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", c.stream, c.shards, got, c.shard)
		}
	}
}

func TestStartRefusesAShardOutsideItsShards(t *testing.T) {
	words, _ := toys(t)
	for _, p := range []Pipeline{{Shard: 1}, {Shard: 3, Shards: 3}, {Shard: -1, Shards: 2}} {
		p.Name, p.Words = "toy", words
		if st, err := Start(nil, p, StageFrontend); err == nil || !strings.Contains(err.Error(), "shard") {
			if st != nil {
				st.Close()
			}
			t.Errorf("shard %d of %d: err %v, want a refusal", p.Shard, p.Shards, err)
		}
	}
}

// TestShardsSplitStreamsAndKeepVoicesWhole runs three frontend and decoder
// shards on a three-node cluster, a features worker beside each. Plain
// streams and named voices' streams, from clients on two nodes at once,
// get exactly the in-process results, each result once: every shard
// answers only its own streams. A voice's streams all reach one shard, so
// its session spans them as it would in one process; forgetting a voice
// gets one answer; a voice named by the header, which could be any
// shard's, is refused once.
func TestShardsSplitStreamsAndKeepVoicesWhole(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	nodes := startCluster(t, 3)
	const shards = 3
	stages := make([]*Stages, shards)
	for k := range stages {
		st, err := Start(connectTo(t, nodes[k], "shard"+strconv.Itoa(k)), Pipeline{Name: "toy", Words: words, Shard: k, Shards: shards},
			StageFrontend, StageFeatures, StageDecoder)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stages[k] = st
	}
	for _, kind := range []string{KindPCM, KindVector, KindScores, KindForget} {
		waitInterest(t, nodes, Subject("toy", kind, "x"), shards)
	}
	waitInterest(t, nodes, VoiceSubject("toy", "v", "x"), shards)

	// Every result and forget answer, counted by subject, to catch a
	// second shard answering for a stream.
	watcher := connectTo(t, nodes[0], "watcher")
	var mu sync.Mutex
	count := map[string]int{}
	for _, subj := range []string{Wildcard("toy", KindResult), Wildcard("toy", KindForgotten)} {
		sub, err := watcher.Subscribe(subj, func(m *nats.Msg) {
			mu.Lock()
			count[m.Subject]++
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		sub.SetPendingLimits(-1, -1)
	}
	if err := watcher.Flush(); err != nil {
		t.Fatal(err)
	}

	// One voice per shard, so each shard holds a voice.
	voiceOfShard := make([]string, shards)
	for i, found := 0, 0; found < shards; i++ {
		v := "voice" + strconv.Itoa(i)
		if k := ShardOf(v, shards); voiceOfShard[k] == "" {
			voiceOfShard[k], found = v, found+1
		}
	}
	alone, _ := spot(nil)
	const perVoice = 3
	voiceWant := make([][]engine.Result, perVoice)
	var session *engine.VoiceSession
	for i := range voiceWant {
		voiceWant[i], session = spot(session)
	}

	clients := []*nats.Conn{connectTo(t, nodes[1], "client1"), connectTo(t, nodes[2], "client2")}
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32}
	// streamAll's t.Fatal may not be called off the test's goroutine.
	stream := func(nc *nats.Conn, name string, o StreamOptions) []engine.Result {
		var got []engine.Result
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, err := StreamAudio(ctx, nc, "toy", name, a, o, func(r engine.Result) { got = append(got, r) }); err != nil {
			t.Errorf("stream %s (voice %q): %v", name, o.Voice, err)
		}
		return got
	}
	var wg sync.WaitGroup
	wantCount := map[string]int{}
	const plain = 9
	for i := range plain {
		name := "p" + strconv.Itoa(i)
		wantCount[ResultSubject("toy", "", name)] = len(alone)
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := stream(clients[i%2], name, o)
			if !sameResults(got, alone) {
				t.Errorf("plain stream %s: results\n%+v\nin-process\n%+v", name, got, alone)
			}
		}()
	}
	for k, voice := range voiceOfShard {
		for i := range perVoice {
			wantCount[ResultSubject("toy", voice, "s"+strconv.Itoa(i))] = len(voiceWant[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			vo := o
			vo.Voice = voice
			for i := range perVoice {
				got := stream(clients[k%2], "s"+strconv.Itoa(i), vo)
				if !sameResults(got, voiceWant[i]) {
					t.Errorf("voice %s, stream %d: results\n%+v\nin-process, the voice's session carried over\n%+v", voice, i, got, voiceWant[i])
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for k, st := range stages {
		if got := voiceNames(st); len(got) != 1 || got[0] != voiceOfShard[k] {
			t.Errorf("shard %d holds voices %v, want only %s", k, got, voiceOfShard[k])
		}
		if st.Stats().Messages == 0 {
			t.Errorf("shard %d's frontend took no message", k)
		}
	}

	// Forgetting a voice, known or not, is answered by its shard alone.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range []struct {
		voice string
		known bool
	}{{voiceOfShard[0], true}, {voiceOfShard[2], true}, {"nobody", false}} {
		forgotten, err := ForgetVoice(ctx, clients[0], "toy", c.voice)
		if err != nil || forgotten != c.known {
			t.Fatalf("forget %s: %v, %v; want %v", c.voice, forgotten, err, c.known)
		}
		wantCount[Subject("toy", KindForgotten, c.voice)] = 1
	}

	// A voice in the header is refused by the stream's shard, once, and
	// the stream ends.
	refused := subscribe(t, clients[1], ResultSubject("toy", "", "hdr"))
	b, _ := EncodePCM(make([]float32, 800), EncF32)
	m := nats.NewMsg(Subject("toy", KindPCM, "hdr"))
	m.Data = b
	for k, v := range map[string]string{HdrSeq: "0", HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: "alice", HdrEOS: "1"} {
		m.Header.Set(k, v)
	}
	if err := clients[1].PublishMsg(m); err != nil {
		t.Fatal(err)
	}
	first := nextResult(t, refused)
	if !strings.Contains(first.Error, "split between 3 frontends") {
		t.Fatalf("a header voice on a sharded pipeline: %+v, want a refusal", first)
	}
	if last := nextResult(t, refused); !last.EOS {
		t.Fatalf("after the refusal: %+v, want the end of the stream", last)
	}
	wantCount[ResultSubject("toy", "", "hdr")] = 2

	// Copies from other shards would arrive with the originals; give them
	// the time of a few round trips through the cluster first.
	for _, nc := range append(clients, watcher) {
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if err := watcher.Flush(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for subj, n := range wantCount {
		if count[subj] != n {
			t.Errorf("%s: %d messages, want %d", subj, count[subj], n)
		}
	}
	if len(count) != len(wantCount) {
		b, _ := json.Marshal(count)
		t.Errorf("messages on %d subjects, want %d: %s", len(count), len(wantCount), b)
	}
}
