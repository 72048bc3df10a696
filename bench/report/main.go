// Command report is the Go half of bench/run: it prepares the test sets,
// scores transcripts, measures commands and writes bench/REPORT.md with its
// charts. bench/run calls it; each subcommand can be run by hand too.
//
// Usage:
//
//	report prep    -corpus DIR [-real DIR] -out DIR [-n 30] [-fsdd 100] [-snr 20,10]
//	report score   -manifest M -hyp FILE -hyp-format heed|ps -system S -set X -cond C -trn DIR -o RESULTS
//	report measure -o RESULTS [-stdin FILE] [-stdout FILE] [-log FILE] -fields JSON -- COMMAND [ARG...]
//	report write   -results RESULTS -env ENV.json -out REPORT.md -charts DIR
//
// prep writes one manifest per source and condition (clean and each SNR)
// under OUT/sets, every file as 16 kHz mono 16-bit WAV, so that both
// systems read the same samples: the espeak-ng dev utterances of the
// corpus, the next dev sentences spoken by flite's and festival's voices,
// the real speakers' *_dev.jsonl manifests under -real, and the FSDD test
// digits; noisy copies add pink noise at each SNR over the speech frames
// (corpus.AddNoise), seeded per file.
//
// score reads a manifest and the hypotheses of one system (heed transcribe's
// "FILE<TAB>TEXT" lines, or pocketsphinx_batch's "TEXT (ID SCORE)" lines),
// computes word and character error rates (Levenshtein over words and
// characters after lowercasing and keeping a-z and apostrophes), writes
// sclite's trn files and, when sclite is installed, scores them with it
// too, and appends one JSON line to RESULTS.
//
// measure runs a command and appends one JSON line to RESULTS: the given
// fields plus wall_s, cpu_s (user + system, the command and every process
// it waited for) and rss_mb (the largest resident set of any of them).
//
// write reads RESULTS (JSON Lines from score, measure and the alignment
// runs) and ENV.json (machine, versions, commands) and writes the report
// and its PNG charts.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: report prep|score|measure|write [flags]")
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "prep":
		err = prep(args)
	case "score":
		err = score(args)
	case "measure":
		err = measure(args)
	case "write":
		err = write(args)
	default:
		fmt.Fprintf(os.Stderr, "report: unknown command %q (want prep, score, measure or write)\n", cmd)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "report %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
