package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

// The four tasks the product trains models for: their recipes are package
// train's, their flags internal/cli's. Their evaluations are the
// laboratory's (rfstream eval).
func init() {
	cli.RegisterTask(&cli.Task{Name: "digits", Summary: "spoken digits (FSDD or manifests): whole-word random features + RLS", Train: trainDigits})
	cli.RegisterTask(&cli.Task{Name: "mnist", Summary: "MNIST digits (or any IDX image/label files): random features + RLS", Train: trainMNIST})
	cli.RegisterTask(&cli.Task{Name: "connected", Summary: "connected digit strings: frame classifier over HMM states + Viterbi (WER/SER)", Train: trainConnected})
	cli.RegisterTask(&cli.Task{Name: "images", Summary: "your own pictures: a folder of class subfolders (PNG, JPEG, GIF, PGM) → random features + RLS, with an out-of-domain rule", Train: trainImageFolder})
	cli.RegisterTask(&cli.Task{Name: "shipped", Summary: "the models that ship with rfstream, from their recipes: what recognize, stream, serve and tag use when no model is named", Train: trainShipped})
	cli.RegisterTask(&cli.Task{Name: "phones", Summary: "phone recognition: 3-state phone HMMs trained by alignment, phone loop (PER on held-out voices)", Train: trainPhones})
}

func trainDigits(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train digits", "--out MODEL [flags]", stderr)
	o := train.DefaultDigitOptions()
	var ws cli.WordSet
	cli.WordSetFlags(fs, &ws)
	cli.MapFlags(fs, &o.Map)
	checkVoices := cli.VoiceFlags(fs, &o.Voices)
	cli.WarpOrbitFlags(fs, &o.Orbit)
	fs.StringVar(&o.Split, "split", o.Split, "FSDD recordings to train on: official (takes 5-49) or all")
	out := fs.String("out", "", "where to save the model (default: the data cache's digit model, replaced only with --force)")
	force := cli.ForceFlag(fs)
	spkNorm := fs.String("speaker-norm", "none", "speaker-level CMVN: none, or mean (each training voice's mean log-mel spectrum removed; a new voice's is removed too, estimated from one recording, or with recognize --adapt from all of a voice's recordings)")
	selfTrain := fs.String("self-train", "", "make the model adaptable: rfstream recognize --adapt runs one self-training round per comma-separated fraction over a voice's recordings, as eval digits --self-train does (the model then carries its training rows)")
	fs.BoolVar(&o.AloneCopies, "alone-copies", false, "with --speaker-norm mean: add a copy of every training row normalised as a voice's first recording is in a live session (mostly with the training voices' average spectrum), so the model also knows a voice it has not learnt yet; train only (eval digits has no such flag)")
	cli.WordConfigFlags(fs, &o.Word)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkVoices(); err != nil {
		return err
	}
	if o.AloneCopies && *spkNorm != "mean" {
		return errors.New("--alone-copies needs --speaker-norm mean")
	}
	var err error
	if o.Rounds, err = cli.ParseSelfTrain(*selfTrain); err != nil {
		return err
	}
	if *spkNorm != "none" && *spkNorm != "mean" {
		return fmt.Errorf("unknown --speaker-norm %q (none, mean)", *spkNorm)
	}
	if *out, err = cli.TrainOut(*out, defaults.DigitModelPath(), *force); err != nil {
		return err
	}
	o.FSDD, o.Manifest, o.Exclude = ws.FSDD, ws.TrainManifest, ws.Exclude
	o.VoiceNorm, o.Log = *spkNorm == "mean", stderr
	model, err := train.Words(o)
	if err != nil {
		return err
	}
	if err := engine.SaveModel(*out, model); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved %s\n", *out)
	return nil
}

func trainMNIST(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train mnist", "--out MODEL [flags]", stderr)
	o := train.DefaultImageOptions()
	cli.MapFlags(fs, &o.Map)
	cli.ImageFlags(fs, &o)
	cli.ThreadsFlag(fs, &o)
	fs.Float64Var(&o.Lambda, "lambda", o.Lambda, "ridge parameter (0: choose on 10% of the training set)")
	out := fs.String("out", "", "where to save the model")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errUsage
	}
	o.Log = stderr
	run, err := recipes.TrainImages(o, stderr)
	if err != nil {
		return err
	}
	if err := engine.SaveModel(*out, run.Model); err != nil {
		return err
	}
	r := run.Report
	msg := fmt.Sprintf("saved %s (%s, λ=%.3g, trained in %.1fs)", *out, o.Map.Label(features.NewIdentity(r.M)), r.Lambda, r.TrainSeconds)
	if run.Test != nil {
		msg += fmt.Sprintf("; test error %.2f%%", 100*r.TestError)
	}
	fmt.Fprintln(stdout, msg)
	return nil
}

func trainImageFolder(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train images", "--dir DIR --out MODEL [flags]", stderr)
	o := train.DefaultImageOptions()
	fs.StringVar(&o.TrainDir, "dir", "", "training pictures: a folder holding one subfolder per class, named as the class")
	fs.StringVar(&o.TestDir, "test-dir", "", "test pictures in the same layout (optional): the test error is reported")
	cli.MapFlags(fs, &o.Map)
	cli.ImageFolderFlags(fs, &o)
	out := fs.String("out", "", "where to save the model")
	asJSON := fs.Bool("json", false, "end with one JSON object (the training report)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.TrainDir == "" || *out == "" {
		fs.Usage()
		return errUsage
	}
	o.Log = stderr
	d, err := train.LoadImages(o, true)
	if err != nil {
		return err
	}
	run, err := train.Images(o, d)
	if err != nil {
		return err
	}
	if err := engine.SaveModel(*out, run.Model); err != nil {
		return err
	}
	r := run.Report
	msg := fmt.Sprintf("saved %s (%d classes, %d pictures, %s, λ=%.3g, trained in %.1fs)", *out, len(d.Classes), r.TrainN, o.Map.Label(features.NewIdentity(r.M)), r.Lambda, r.TrainSeconds)
	if run.Test != nil {
		msg += fmt.Sprintf("; test error %.2f%%", 100*r.TestError)
	}
	fmt.Fprintln(stdout, msg)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	return nil
}

func trainConnected(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train connected", "[flags]", stderr)
	o := recipes.ConnectedOptions() // the shipped model's recipe
	cli.DigitStringFlags(fs, &o)
	out := fs.String("out", "", "model file to write (default: the data cache's connected-digit model, "+defaults.ConnectedModel()+", replaced only with --force)")
	force := cli.ForceFlag(fs)
	asJSON := fs.Bool("json", false, "end with one JSON object (the training report)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if *out, err = cli.TrainOut(*out, defaults.ConnectedModel(), *force); err != nil {
		return err
	}
	o.Log = stderr
	m, rep, err := train.DigitStrings(o)
	if err != nil {
		return err
	}
	if err := engine.SaveModel(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained in %.1f s; saved %s\n", rep.Seconds, *out)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	return nil
}

func trainPhones(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train phones", "[flags]", stderr)
	o := train.RealPhoneRecipe(defaults.RealVoicesDir())
	cli.PhoneFlags(fs, &o)
	out := fs.String("out", "", "model file to write (default: the data cache's phone model, "+defaults.PhoneModelPath()+", replaced only with --force)")
	force := cli.ForceFlag(fs)
	asJSON := fs.Bool("json", false, "end with one JSON object (passes, tuning)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if *out, err = cli.TrainOut(*out, defaults.PhoneModelPath(), *force); err != nil {
		return err
	}
	m, d, res, err := train.PhoneModel(o, stderr)
	if err != nil {
		return err
	}
	if err := engine.SaveModel(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained a %d-phone model in %.1f s; saved %s\n", len(d.Phones), res.TrainSec, *out)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	return nil
}

func trainShipped(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train shipped", "--out DIR [--only NAME,…]", stderr)
	out := fs.String("out", "", "folder to write the models and their manifest.json to (make models: internal/shipped)")
	only := fs.String("only", "", "comma-separated names of the models to train (default: all of them; the manifest keeps the others' entries)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("train shipped: --out DIR is required")
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	return recipes.TrainShipped(*out, names, stderr)
}
