// litebench driver noop-go: the protocol with no database behind it. It reads each batch,
// answers every transaction "ok" with 0 rows and times nothing but its own loop, so a run
// through it measures what the protocol costs a Go driver outside its timed region (decoding
// batches, writing results) and shows that the timed region itself is near empty. It sets
// nothing by itself; knobs are read back as sent.
package main

import (
	"runtime"
	"strings"
)

type noopEngine struct{}

func (noopEngine) open(m *message) (*opened, *protoError) {
	return &opened{
		Type:           "opened",
		Driver:         "noop-go",
		Runtime:        "Go " + strings.TrimPrefix(runtime.Version(), "go"),
		Library:        "none (no-op driver)",
		SQLiteVersion:  "none",
		CompileOptions: []string{},
		Knobs:          m.Knobs,
		Implicit:       []knob{},
	}, nil
}

func (noopEngine) try(*txn) (string, int64, int64, string) { return "ok", 0, 0, "" }

func (noopEngine) close() error { return nil }

func main() {
	serve(noopEngine{})
}
