package cli

import (
	"flag"

	"github.com/rfstream/rfstream/train"
)

// ImageFolderFlags registers the flags of training on image folders,
// shared by train images and eval images, with o's values as defaults.
// The folders' own flags (--dir, --train-dir, --test-dir) are the
// commands'.
func ImageFolderFlags(fs *flag.FlagSet, o *train.ImageOptions) {
	fs.IntVar(&o.Height, "height", o.Height, "pictures are brought to this many rows of pixels (0: 28, MNIST's)")
	fs.IntVar(&o.Width, "width", o.Width, "pictures are brought to this many columns (0: 28)")
	fs.StringVar(&o.Polarity, "polarity", o.Polarity, "auto: every picture is turned light on dark with its ground at 0 (dark ink on paper is inverted), in training and tagging alike; none: pixels as decoded")
	fs.IntVar(&o.OODComponents, "ood-components", o.OODComponents, "out-of-domain rule: principal directions of the training features an image's features must mostly lie in (0: no rule)")
	fs.Float64Var(&o.OODReject, "ood-reject", o.OODReject, "out-of-domain rule: share of held-out training pictures its threshold marks out of domain")
	fs.IntVar(&o.PerClass, "per-class", o.PerClass, "train on this many pictures per class (0: all)")
	fs.Uint64Var(&o.SubsetSeed, "subset-seed", o.SubsetSeed, "seed choosing the --per-class subset and the held-out pictures of the out-of-domain rule")
	fs.BoolVar(&o.Deskew, "deskew", o.Deskew, "shear every picture upright before normalising")
	fs.StringVar(&o.Normalize, "normalize", o.Normalize, "rows after pixels are scaled to [0, 1]: unit (length 1) or none")
	fs.Float64Var(&o.Lambda, "lambda", o.Lambda, "ridge parameter (0: choose on 10% of the training set)")
	ThreadsFlag(fs, o)
}
