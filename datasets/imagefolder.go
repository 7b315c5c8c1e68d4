package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// An image folder is a labelled image set as people keep one: a folder
// holding one subfolder per class, named as the class, each holding that
// class's pictures (PNG, JPEG, GIF or PGM, told apart by their content).
// Other files and deeper folders are ignored, as are names starting with
// a dot.

// ImageExtensions are the file name endings an image folder's pictures
// carry (compared without case).
var ImageExtensions = []string{".png", ".jpg", ".jpeg", ".gif", ".pgm"}

// MaxImageFileBytes bounds one picture's file; together with
// frontend.MaxImagePixels, read from its header before its pixels are
// decoded, it bounds the memory one picture costs.
const MaxImageFileBytes = 32 << 20

// MaxFolderImages bounds the pictures of one image folder, and so the
// rows the decoded set holds.
const MaxFolderImages = 1 << 20

// ImageFolder lists an image folder's pictures and their classes.
type ImageFolder struct {
	Dir     string
	Classes []string // the class names, sorted; Labels index them
	Files   []string // the pictures' paths, class by class, sorted
	Labels  []int
}

// ListImageFolder lists the pictures of the image folder dir. With
// classes given (the classes a model was trained on), every subfolder
// must be one of them and labels are their indices; otherwise the
// subfolders are the classes, at least two. A class without pictures is
// an error naming it.
func ListImageFolder(dir string, classes []string) (*ImageFolder, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("image folder: %w", err)
	}
	f := &ImageFolder{Dir: dir, Classes: classes}
	var subdirs []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			subdirs = append(subdirs, e.Name())
		}
	}
	sort.Strings(subdirs)
	if classes == nil {
		if len(subdirs) < 2 {
			return nil, fmt.Errorf("image folder %s: %d class subfolders; give at least two (one per class, named as the class)", dir, len(subdirs))
		}
		f.Classes = subdirs
	}
	index := map[string]int{}
	for i, c := range f.Classes {
		index[c] = i
	}
	for _, sub := range subdirs {
		label, ok := index[sub]
		if !ok {
			return nil, fmt.Errorf("image folder %s: class %q is not one of the model's %v", dir, sub, f.Classes)
		}
		files, err := classFiles(filepath.Join(dir, sub))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("image folder %s: class %q holds no picture (%s)", dir, sub, strings.Join(ImageExtensions, ", "))
		}
		if len(f.Files)+len(files) > MaxFolderImages {
			return nil, fmt.Errorf("image folder %s: more than %d pictures", dir, MaxFolderImages)
		}
		f.Files = append(f.Files, files...)
		for range files {
			f.Labels = append(f.Labels, label)
		}
	}
	if len(f.Files) == 0 {
		return nil, fmt.Errorf("image folder %s: no class subfolder holds a picture", dir)
	}
	return f, nil
}

// classFiles lists the pictures of one class folder, sorted.
func classFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("image folder: %w", err)
	}
	var files []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		ext := strings.ToLower(filepath.Ext(name))
		for _, want := range ImageExtensions {
			if ext == want {
				files = append(files, filepath.Join(dir, name))
				break
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// Decode reads every picture, each brought to h×w grey pixels in [0, 1]
// (frontend.DecodeImage), as one row of a labelled set. The first picture
// that cannot be read stops it with an error naming the file and why.
func (f *ImageFolder) Decode(h, w int) (*frontend.LabelledImages, error) {
	if h < 1 || w < 1 || h*w > frontend.MaxImagePixels {
		return nil, fmt.Errorf("image folder %s: model size %dx%d", f.Dir, h, w)
	}
	x := linalg.NewGeneral32(len(f.Files), h*w)
	for i, path := range f.Files {
		b, err := ReadImageFile(path)
		if err != nil {
			return nil, err
		}
		px, err := frontend.DecodeImage(b, h, w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		copy(linalg.Row32(x, i), px)
	}
	return &frontend.LabelledImages{Images: &frontend.Images{N: len(f.Files), Height: h, Width: w, X: x},
		Labels: append([]int(nil), f.Labels...)}, nil
}

// ReadImageFile reads one picture, refusing a file over MaxImageFileBytes
// without reading all of it.
func ReadImageFile(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, MaxImageFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxImageFileBytes {
		return nil, fmt.Errorf("%s: file over the %d-byte limit of a picture", path, MaxImageFileBytes)
	}
	return b, nil
}
