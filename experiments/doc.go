// Package experiments is the laboratory, and that is its one job: the
// evaluation protocols (eval digits, mnist, phones, connected, elss,
// xperm, …), the paper's figures and tables, the probes and the run
// journals, run by the binary experiments/cmd/rfstream-lab (rfstream eval
// runs it), with the library code only they need in subpackages
// (counttable). Nothing in the product imports it: models are made by
// package train, which the laboratory calls like the product does, so what
// it measures is what the product ships.
package experiments
