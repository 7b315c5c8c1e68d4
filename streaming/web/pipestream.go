package web

import (
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/streaming"
)

// pipeStream is one audio stream a WebSocket feeds into the pipeline: its
// PCM messages go out numbered, its results come back on results.
type pipeStream struct {
	nc      *nats.Conn
	subject string // where its audio goes
	name    string
	rate    int
	seq     int
	offset  int // samples sent so far: the next message's streaming.HdrOffset
	ended   bool
	results chan *nats.Msg
	sub     *nats.Subscription
}

// openStream subscribes to a fresh stream's results (before any audio is
// sent, so none is missed). voice, when set, names the voice speaking
// (its audio goes to streaming.VoiceSubject).
func (s *Server) openStream(prefix, voice string, rate int) (*pipeStream, error) {
	p := &pipeStream{nc: s.nc, name: streamName(prefix), rate: rate, results: make(chan *nats.Msg, 256)}
	p.subject = streaming.Subject(s.cfg.Pipeline, streaming.KindPCM, p.name)
	if voice != "" {
		p.subject = streaming.VoiceSubject(s.cfg.Pipeline, voice, p.name)
	}
	var err error
	if p.sub, err = s.nc.ChanSubscribe(streaming.ResultSubject(s.cfg.Pipeline, voice, p.name), p.results); err != nil {
		return nil, err
	}
	p.sub.SetPendingLimits(-1, -1)
	if err := s.nc.Flush(); err != nil {
		p.sub.Unsubscribe()
		return nil, err
	}
	return p, nil
}

// nameVoice makes a stream that has sent nothing yet name the voice
// speaking (the Vosk endpoint's "voice" configuration): its audio and
// results go by the voice's subjects from now on, as openStream's do for
// a voice named at the start.
func (p *pipeStream) nameVoice(pipeline, voice string) error {
	sub, err := p.nc.ChanSubscribe(streaming.ResultSubject(pipeline, voice, p.name), p.results)
	if err != nil {
		return err
	}
	sub.SetPendingLimits(-1, -1)
	if err := p.nc.Flush(); err != nil {
		sub.Unsubscribe()
		return err
	}
	p.sub.Unsubscribe()
	p.sub, p.subject = sub, streaming.VoiceSubject(pipeline, voice, p.name)
	return nil
}

// send publishes s16le PCM, in messages of at most streaming.MaxChunkBytes.
func (p *pipeStream) send(pcm []byte) error {
	for len(pcm) > 0 {
		n := min(len(pcm), streaming.MaxChunkBytes)
		if err := p.publish(pcm[:n], false); err != nil {
			return err
		}
		pcm = pcm[n:]
	}
	return nil
}

// end publishes the end of the stream, once.
func (p *pipeStream) end() error {
	if p.ended {
		return nil
	}
	p.ended = true
	return p.publish(nil, true)
}

// close ends the stream when it has not ended (the pipeline frees a
// stream's state at its end-of-stream, so a socket closed mid-recording
// still ends its stream) and stops its results.
func (p *pipeStream) close() {
	p.end()
	p.sub.Unsubscribe()
}

func (p *pipeStream) publish(pcm []byte, eos bool) error {
	m := nats.NewMsg(p.subject)
	m.Data = pcm
	m.Header.Set(streaming.HdrSeq, strconv.Itoa(p.seq))
	m.Header.Set(streaming.HdrRate, strconv.Itoa(p.rate))
	m.Header.Set(streaming.HdrEncoding, streaming.EncS16)
	m.Header.Set(streaming.HdrOffset, strconv.Itoa(p.offset))
	p.offset += len(pcm) / 2
	if eos {
		m.Header.Set(streaming.HdrEOS, "1")
	}
	p.seq++
	return p.nc.PublishMsg(m)
}
