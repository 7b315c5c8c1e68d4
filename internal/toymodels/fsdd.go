package toymodels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rfstream/rfstream/frontend"
)

// UpWord is the toy word model's "up" with silence around it: a rising
// glide between 100 ms of faint noise on either side.
func UpWord(seed uint32) []float32 {
	return append(append(Noise(800, seed), Glide(400, 1500, 0.35, seed)...), Noise(800, seed+1)...)
}

// DownWord is UpWord's falling counterpart.
func DownWord(seed uint32) []float32 {
	return append(append(Noise(800, seed), Glide(1500, 400, 0.35, seed)...), Noise(800, seed+1)...)
}

// WriteWAV writes x as a 16-bit WAV file at 8 kHz.
func WriteWAV(path string, x []float32) error {
	var b bytes.Buffer
	if err := frontend.EncodeWAV16(&b, &frontend.Audio{Rate: 8000, Samples: x}); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// WriteFSDD writes into dir a toy word set named like FSDD: digit 0 is a
// rising glide, digit 1 a falling one, takes 0 to takes-1 by every
// speaker, each recording with noise of its own.
func WriteFSDD(dir string, speakers []string, takes int) error {
	for take := 0; take < takes; take++ {
		for si, speaker := range speakers {
			seed := uint32(100*take + 10*si)
			if err := WriteWAV(filepath.Join(dir, fmt.Sprintf("0_%s_%d.wav", speaker, take)), UpWord(seed)); err != nil {
				return err
			}
			if err := WriteWAV(filepath.Join(dir, fmt.Sprintf("1_%s_%d.wav", speaker, take)), DownWord(seed+5)); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteIDX writes n synthetic 8×8 bar images (label = orientation) and
// their labels as IDX files named name-images and name-labels in dir.
func WriteIDX(dir, name string, n int) (images, labels string, err error) {
	var im, lb bytes.Buffer
	binary.Write(&im, binary.BigEndian, []uint32{0x803, uint32(n), 8, 8})
	binary.Write(&lb, binary.BigEndian, []uint32{0x801, uint32(n)})
	for i := 0; i < n; i++ {
		for _, v := range Bars(i%2, (i/2)%8) {
			im.WriteByte(byte(255 * v))
		}
		lb.WriteByte(byte(i % 2))
	}
	images, labels = filepath.Join(dir, name+"-images"), filepath.Join(dir, name+"-labels")
	if err := os.WriteFile(images, im.Bytes(), 0o644); err != nil {
		return "", "", err
	}
	return images, labels, os.WriteFile(labels, lb.Bytes(), 0o644)
}
