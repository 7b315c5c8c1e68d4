package rfstream_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// The model the rfstream command uses, shipped with the module, hears a
// recording: the text `rfstream recognize` prints for it. The recording is
// FSDD's theo saying 3, 1 and 4 with pauses (CC BY-SA 4.0, see NOTICE).
func ExampleDefaultModel() {
	model, err := rfstream.DefaultModel(rfstream.TaskConnected)
	if err != nil {
		log.Fatal(err)
	}
	rec, err := rfstream.NewRecognizer(model)
	if err != nil {
		log.Fatal(err)
	}
	samples, rate, err := rfstream.ReadAudio("testdata/fsdd-3-1-4.wav")
	if err != nil {
		log.Fatal(err)
	}
	res, err := rec.Recognize(samples, rate)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output: 3 1 4
}

// A model file is loaded, given a recogniser and heard.
func ExampleNewRecognizer() {
	dir := exampleFolder()
	defer os.RemoveAll(dir)
	path := saveExampleModel(dir, "updown.rfm", exampleWordModel())

	model, err := rfstream.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	rec, err := rfstream.NewRecognizer(model)
	if err != nil {
		log.Fatal(err)
	}
	res, err := rec.Recognize(toymodels.UpWord(21), 8000)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output: up
}

// A recording is read from a WAV file and heard.
func ExampleReadAudio() {
	dir := exampleFolder()
	defer os.RemoveAll(dir)
	model := exampleWordModel()
	wav := filepath.Join(dir, "up.wav")
	if err := toymodels.WriteWAV(wav, toymodels.UpWord(5)); err != nil {
		log.Fatal(err)
	}

	samples, rate, err := rfstream.ReadAudio(wav)
	if err != nil {
		log.Fatal(err)
	}
	rec, err := rfstream.NewRecognizer(model)
	if err != nil {
		log.Fatal(err)
	}
	res, err := rec.Recognize(samples, rate)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d Hz: %s\n", rate, res.Text)
	// Output: 8000 Hz: up
}

// A live stream: audio arrives in 20 ms chunks, as from a microphone, a
// final result comes each time an utterance closes, and Flush ends the
// stream with the transcript of all of it.
func ExampleNewStream() {
	c, err := toymodels.Connected()
	if err != nil {
		log.Fatal(err)
	}
	// "up", a pause of 1.2 s, then "down": a rising and a falling glide in
	// faint noise.
	samples := toymodels.Noise(2400, 1)
	samples = append(samples, toymodels.Glide(400, 1500, 0.3, 2)...)
	samples = append(samples, toymodels.Noise(9600, 3)...)
	samples = append(samples, toymodels.Glide(1500, 400, 0.3, 4)...)
	samples = append(samples, toymodels.Noise(4000, 5)...)

	stream, err := rfstream.NewStream(c.Model, 8000)
	if err != nil {
		log.Fatal(err)
	}
	var results []rfstream.Result
	for len(samples) > 0 {
		n := min(160, len(samples))
		results = append(results, stream.Push(samples[:n])...)
		samples = samples[n:]
	}
	results = append(results, stream.Flush()...)
	for _, r := range results {
		if r.Final && !r.EOS {
			fmt.Println("heard:", r.Text)
		}
	}
	fmt.Println("transcript:", results[len(results)-1].Text)
	// Output:
	// heard: up
	// heard: up down
	// transcript: up down
}

// An image model tags a PNG with its best label.
func ExampleNewImageTagger() {
	t, err := toymodels.Images() // horizontal or vertical bars on 8×8 pixels
	if err != nil {
		log.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 8, 8))
	for i, v := range toymodels.Bars(1, 5) {
		img.Set(i%8, i/8, color.Gray{Y: uint8(255 * v)})
	}
	var picture bytes.Buffer
	if err := png.Encode(&picture, img); err != nil {
		log.Fatal(err)
	}

	tagger, err := rfstream.NewImageTagger(t.Model)
	if err != nil {
		log.Fatal(err)
	}
	tags, err := tagger.Tag(picture.Bytes(), 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tags.Tags[0].Label)
	// Output: vertical
}

// A voice session hears one voice's recordings in turn, is saved, and the
// next session goes on from it.
func ExampleLoadVoiceSession() {
	dir := exampleFolder()
	defer os.RemoveAll(dir)
	c, err := toymodels.VoiceWords()
	if err != nil {
		log.Fatal(err)
	}
	model := c.Model

	session, err := rfstream.NewVoiceSession(model)
	if err != nil {
		log.Fatal(err)
	}
	for seed := range uint32(3) {
		res, err := session.Recognize(toymodels.UpWord(seed), 8000)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Text)
	}
	path, err := rfstream.VoicePath(model, dir, "ann")
	if err != nil {
		log.Fatal(err)
	}
	if err := session.Save(path); err != nil {
		log.Fatal(err)
	}

	again, err := rfstream.LoadVoiceSession(model, path)
	if err != nil {
		log.Fatal(err)
	}
	res, err := again.Recognize(toymodels.DownWord(7), 8000)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text, "after", again.Recordings(), "recordings of the voice")
	// Output:
	// up
	// up
	// up
	// down after 4 recordings of the voice
}

// A voice is taught one recording of each word, then heard: this voice's
// glides are pitched higher than any the toy model was trained on.
func ExampleVoiceSession_Teach() {
	c, err := toymodels.VoiceWords()
	if err != nil {
		log.Fatal(err)
	}
	session, err := rfstream.NewVoiceSession(c.Model)
	if err != nil {
		log.Fatal(err)
	}
	say := func(word string, seed uint32) []float32 {
		lo, hi := 400*1.6, 1500*1.6
		if word == "down" {
			lo, hi = hi, lo
		}
		return append(append(toymodels.Noise(800, seed), toymodels.Glide(lo, hi, 0.35, seed)...), toymodels.Noise(800, seed+1)...)
	}
	for i, word := range []string{"up", "down"} {
		if err := session.Teach(say(word, uint32(i)), 8000, word); err != nil {
			log.Fatal(err)
		}
	}
	for seed := uint32(10); seed < 13; seed++ {
		res, err := session.Recognize(say("down", seed), 8000)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Text)
	}
	fmt.Println(session.Taught(), "words taught")
	// Output:
	// down
	// down
	// down
	// 2 words taught
}

func exampleFolder() string {
	dir, err := os.MkdirTemp("", "rfstream-example-")
	if err != nil {
		log.Fatal(err)
	}
	return dir
}

// exampleWordModel is a toy isolated-word model of two words, "up" (a
// rising glide) and "down" (a falling one).
func exampleWordModel() *rfstream.Model {
	c, err := toymodels.Words()
	if err != nil {
		log.Fatal(err)
	}
	return c.Model
}

func saveExampleModel(dir, name string, m *rfstream.Model) string {
	path := filepath.Join(dir, name)
	if err := engine.SaveModel(path, m); err != nil {
		log.Fatal(err)
	}
	return path
}
