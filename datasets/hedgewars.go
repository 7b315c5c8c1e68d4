package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Hedgewars' voice packs are real non-digit speech of many voices: each
// pack is one actor saying the game's short phrases ("Amazing", "Take
// cover", "Leave me alone"). They come from Debian main's hedgewars-data,
// fetched with apt-get download and unpacked with dpkg-deb (no install),
// the package checked against the SHA-256 it was measured with.
const (
	hedgewarsPackage = "hedgewars-data"
	hedgewarsVersion = "1.0.2-6"
	hedgewarsSHA256  = "722225903a72604403e6e0026e40e9a6953f47a74d94efc5f55504bc05bb4761"
	// hedgewarsVoices is where the packs sit in the package.
	hedgewarsVoices = "./usr/share/games/hedgewars/Data/Sounds/voices"
	// HedgewarsLicence is the voice packs' licence (the package's
	// copyright file, Data/Sounds/*).
	HedgewarsLicence = "GFDL-1.3 (Debian hedgewars-data " + hedgewarsVersion + ", © Andrey Korotaev et al.)"
	// HedgewarsRelease names the package fetched; a folder
	// FetchHedgewarsVoices filled is stamped with it (its .complete file).
	HedgewarsRelease = hedgewarsPackage + " " + hedgewarsVersion + " sha256:" + hedgewarsSHA256
)

// hedgewarsEnglishPacks are the packs whose phrases are English; the
// others (Default_es, _pl, _ru, _uk, Russian_pl) speak other languages.
var hedgewarsEnglishPacks = []string{"British", "Classic", "Default", "HillBilly", "Mobster", "Pirate", "Robot", "Russian", "Singer", "Surfer"}

// hedgewarsSounds are the files that are a sound, not a phrase (grunts,
// coughs, laughs): left out, as the rejection they measure is of words.
var hedgewarsSounds = []string{"Firepunch", "Jump", "Ooff", "Ow", "Laugh", "Poison", "Hmm"}

// FetchHedgewarsVoices makes sure dir holds hedgewars-data's voice packs
// (dir/<pack>/<Phrase>.ogg), fetching the package into a temporary folder
// with apt-get download, checking its SHA-256 and unpacking the packs with
// dpkg-deb and tar. It returns at once when a fetch finished there before.
func FetchHedgewarsVoices(dir string) error {
	return buildOnce(dir, HedgewarsRelease, nil, func() error {
		tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), "hedgewars-fetch-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		get := exec.Command("apt-get", "download", hedgewarsPackage+"="+hedgewarsVersion)
		get.Dir = tmp
		if out, err := get.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get download %s=%s: %v: %s", hedgewarsPackage, hedgewarsVersion, err, strings.TrimSpace(string(out)))
		}
		deb := filepath.Join(tmp, hedgewarsPackage+"_"+hedgewarsVersion+"_all.deb")
		if err := checkSHA256(deb, hedgewarsSHA256); err != nil {
			return err
		}
		unpack := exec.Command("sh", "-c", `dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" "$3"`, "sh", deb, tmp, hedgewarsVoices)
		if out, err := unpack.CombinedOutput(); err != nil {
			return fmt.Errorf("unpacking %s: %v: %s", deb, err, strings.TrimSpace(string(out)))
		}
		for _, p := range hedgewarsEnglishPacks {
			if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(tmp, hedgewarsVoices, p), filepath.Join(dir, p)); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkSHA256 fails unless the file at path has the SHA-256 want.
func checkSHA256(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: SHA-256 %s, want %s", path, got, want)
	}
	return nil
}

// HedgewarsPhrases lists the English packs' spoken phrases under dir (as
// FetchHedgewarsVoices leaves it), Speaker "hedgewars-" and the pack's
// name, Label the phrase's file name without ".ogg", sorted by speaker and
// phrase. A missing pack is an error naming it.
func HedgewarsPhrases(dir string) ([]Recording, error) {
	var recs []Recording
	for _, p := range hedgewarsEnglishPacks {
		ents, err := os.ReadDir(filepath.Join(dir, p))
		if err != nil {
			return nil, fmt.Errorf("hedgewars voice pack %s: %w", p, err)
		}
		for _, e := range ents {
			phrase, ok := strings.CutSuffix(e.Name(), ".ogg")
			if !ok || e.IsDir() || isHedgewarsSound(phrase) {
				continue
			}
			recs = append(recs, Recording{Path: filepath.Join(dir, p, e.Name()), Label: phrase, Speaker: "hedgewars-" + p, Take: -1})
		}
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Speaker != recs[j].Speaker {
			return recs[i].Speaker < recs[j].Speaker
		}
		return recs[i].Label < recs[j].Label
	})
	return recs, nil
}

func isHedgewarsSound(phrase string) bool {
	for _, s := range hedgewarsSounds {
		if strings.HasPrefix(phrase, s) {
			return true
		}
	}
	return false
}

// HeldOutHedgewarsVoice reports whether a pack's phrases are held out of
// every filler's training, to measure rejection on voices never heard:
// every third English pack from the first (British, HillBilly, Robot,
// Surfer).
func HeldOutHedgewarsVoice(speaker string) bool {
	for i, p := range hedgewarsEnglishPacks {
		if "hedgewars-"+p == speaker {
			return i%3 == 0
		}
	}
	return false
}

// SplitHedgewarsPhrases fetches the voice packs into dir when missing
// (FetchHedgewarsVoices) and splits their phrases by voice: those a filler
// may train on, and those of the packs HeldOutHedgewarsVoice holds out.
func SplitHedgewarsPhrases(dir string) (trainable, heldOut []Recording, err error) {
	if err := FetchHedgewarsVoices(dir); err != nil {
		return nil, nil, err
	}
	all, err := HedgewarsPhrases(dir)
	for _, r := range all {
		if HeldOutHedgewarsVoice(r.Speaker) {
			heldOut = append(heldOut, r)
		} else {
			trainable = append(trainable, r)
		}
	}
	return trainable, heldOut, err
}
