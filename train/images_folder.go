package train

import (
	"errors"
	"fmt"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
)

// loadImageFolders reads LoadImages's sets from image folders: the
// training folder's subfolders are the classes, and the test folder's
// must be among them.
func loadImageFolders(o ImageOptions, needTrain bool) (*ImageData, error) {
	if o.TrainImages != "" || o.TrainLabels != "" || o.TestImages != "" || o.TestLabels != "" {
		return nil, errors.New("give image folders or IDX files, not both")
	}
	h, w := o.Height, o.Width
	if h == 0 && w == 0 {
		h, w = DefaultFolderSize, DefaultFolderSize
	}
	d := &ImageData{}
	if needTrain {
		if o.TrainDir == "" {
			return nil, errors.New("give a training image folder (--train-dir or --dir)")
		}
		var err error
		if d.Train, d.Classes, err = readImageFolder(o, o.TrainDir, nil, h, w); err != nil {
			return nil, err
		}
		d.Unlabelled = d.Train.X
		if o.PerClass > 0 {
			d.Train = PerClassSubset(d.Train, o.PerClass, o.SubsetSeed)
		}
	}
	if o.TestDir != "" {
		test, classes, err := readImageFolder(o, o.TestDir, d.Classes, h, w)
		if err != nil {
			return nil, err
		}
		d.Test, d.Classes = test, classes
	}
	return d, nil
}

// readImageFolder lists, decodes and prepares one image folder.
func readImageFolder(o ImageOptions, dir string, classes []string, h, w int) (*frontend.LabelledImages, []string, error) {
	f, err := datasets.ListImageFolder(dir, classes)
	if err != nil {
		return nil, nil, err
	}
	set, err := f.Decode(h, w)
	if err != nil {
		return nil, nil, err
	}
	if err := o.Input(h, w).Prepare(set.X); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	return set, f.Classes, nil
}
