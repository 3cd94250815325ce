// litebench driver go-modernc: modernc.org/sqlite through database/sql (pure Go: SQLite's C
// translated to Go, so no cgo, and its SQLite is the translated amalgamation it carries).
//
// What modernc sets by itself, reported as implicit: no busy timeout unless the DSN has
// _busy_timeout (litebench's busy_timeout knob goes there), _txlock=deferred for db.Begin
// (unused: this driver sends its own BEGIN <mode> on its one conn), no statement cache.
package main

import (
	"errors"
	"net/url"

	"modernc.org/sqlite"
)

const (
	driverName = "go-modernc"
	sqlDriver  = "sqlite"
	modulePath = "modernc.org/sqlite"
)

func dsn(path, busyMs string) string {
	q := url.Values{}
	if busyMs != "" {
		q.Set("_busy_timeout", busyMs)
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

func extendedCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return -1
}

func implicit(busyMs string) []knob {
	busy := "0 ms (modernc sets none: no busy_timeout knob given)"
	if busyMs != "" {
		busy = busyMs + " ms (from the busy_timeout knob, as the DSN's _busy_timeout)"
	}
	return []knob{
		{"_busy_timeout", busy},
		{"_txlock", "deferred (db.Begin's mode; unused: BEGIN <mode> is sent explicitly)"},
		{"statement_cache", "none (database/sql; statements prepared once on the one conn)"},
		{"connections", "1 (db.SetMaxOpenConns(1), one *sql.Conn)"},
	}
}
