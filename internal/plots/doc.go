// Package plots draws the figures the evaluations produce: curves with
// error bars and reference points, confusion matrices and scatter plots,
// each saved as PNG and SVG side by side.
package plots
