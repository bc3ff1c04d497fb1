// Reads a ghz -O json report on stdin and prints it again with ghz's own printer
// (github.com/bojand/ghz/printer, the code behind -O): `reprint < ghz.json` prints the -O summary
// text of that same run, `reprint json < ghz.json` the JSON again (byte-identical to the input,
// which shows that nothing is lost on the way). Build it against the ghz version that wrote the
// report (go.mod: v0.121.0; v0.93.0 for ../../v0.93.0).
//
//	go build -o reprint . && ./reprint < ../../v0.121.0/ghz.json
package main

import (
	"encoding/json"
	"log"
	"os"

	"github.com/bojand/ghz/printer"
	"github.com/bojand/ghz/runner"
)

func main() {
	var r runner.Report
	if err := json.NewDecoder(os.Stdin).Decode(&r); err != nil {
		log.Fatal(err)
	}
	format := "summary"
	if len(os.Args) > 1 {
		format = os.Args[1]
	}
	p := printer.ReportPrinter{Out: os.Stdout, Report: &r}
	if err := p.Print(format); err != nil {
		log.Fatal(err)
	}
}
