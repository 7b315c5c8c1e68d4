package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/train"
)

func TestFlagsMayFollowArguments(t *testing.T) {
	fs := NewFlagSet("x", "", &bytes.Buffer{})
	n := fs.Int("n", 0, "")
	if err := ParseFlags(fs, []string{"a", "-n", "3", "b", "--", "-c"}); err != nil {
		t.Fatal(err)
	}
	if *n != 3 || strings.Join(fs.Args(), " ") != "a b -c" {
		t.Fatalf("n=%d args=%q", *n, fs.Args())
	}
	if err := ParseFlags(fs, []string{"a", "-nope"}); err != ErrUsage {
		t.Fatalf("unknown flag gave %v", err)
	}
}

// Image options built in code (zero values, or train's defaults as the
// demo and first-use training take them) must prepare images as the parsed
// flags' default does, with unit rows.
func TestImageFlagsZeroValueIsUnitRows(t *testing.T) {
	parsed := train.DefaultImageOptions()
	fs := NewFlagSet("test", "", &bytes.Buffer{})
	ImageFlags(fs, &parsed)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	var zero train.ImageOptions
	if got, want := zero.Input(28, 28), parsed.Input(28, 28); got != want || got.Normalize != "unit" {
		t.Errorf("zero-value options give %+v, parsed defaults %+v", got, want)
	}
	if got, want := train.DefaultImageOptions().Input(28, 28), parsed.Input(28, 28); got != want {
		t.Errorf("train's default options give %+v, parsed defaults %+v", got, want)
	}
}

// Help lists every flag as --name, with the flag package's own types,
// texts and defaults otherwise unchanged.
func TestHelpSpellsFlagsWithTwoDashes(t *testing.T) {
	var help bytes.Buffer
	fs := NewFlagSet("x", "FILE", &help)
	fs.String("model", "m.rfm", "model file\nsecond line")
	fs.Int("n", 3, "how many")
	fs.Bool("json", false, "print JSON")
	if err := ParseFlags(fs, []string{"-h"}); err != flag.ErrHelp {
		t.Fatalf("-h gave %v", err)
	}
	var plain bytes.Buffer
	fs.SetOutput(&plain)
	fs.PrintDefaults()
	want := "usage: rfstream x FILE\n\nflags:\n" + strings.NewReplacer("  -json", "  --json", "  -model", "  --model", "  -n", "  --n").Replace(plain.String())
	if help.String() != want {
		t.Fatalf("help:\n%s\nwant:\n%s", help.String(), want)
	}
	if !strings.Contains(want, "  --model string\n    \tmodel file\n    \tsecond line (default \"m.rfm\")") {
		t.Fatalf("help lost the usage text or default:\n%s", want)
	}
}

// A mistyped flag prints the error and a one-line hint, not the flag list.
func TestUnknownFlagPrintsAHintNotTheUsage(t *testing.T) {
	var out bytes.Buffer
	fs := NewFlagSet("recognize", "FILE", &out)
	fs.String("model", "", "model file")
	if err := ParseFlags(fs, []string{"--modle", "x"}); !errors.Is(err, ErrUsage) {
		t.Fatalf("unknown flag gave %v", err)
	}
	want := "flag provided but not defined: -modle\nrun 'rfstream help recognize' for its flags\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
}
