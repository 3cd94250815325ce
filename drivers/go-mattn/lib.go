// litebench driver go-mattn: github.com/mattn/go-sqlite3 through database/sql (cgo; the
// module compiles the SQLite amalgamation it carries, so its SQLite is that one, built with
// the flags in its sqlite3.go cgo header, not the system's).
//
// What mattn sets by itself, reported as implicit: a busy timeout of 5000 ms when the DSN has
// no _busy_timeout (litebench's busy_timeout knob goes into the DSN instead, so the knob wins),
// _txlock=deferred for db.Begin (unused: this driver sends its own BEGIN <mode> on its one
// conn), a private cache, and no statement cache (statements are prepared once, here).
package main

import (
	"errors"
	"net/url"

	sqlite3 "github.com/mattn/go-sqlite3"
)

const (
	driverName = "go-mattn"
	sqlDriver  = "sqlite3"
	modulePath = "github.com/mattn/go-sqlite3"
)

func dsn(path, busyMs string) string {
	q := url.Values{}
	if busyMs != "" {
		q.Set("_busy_timeout", busyMs)
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

func extendedCode(err error) int {
	var e sqlite3.Error
	if errors.As(err, &e) {
		return int(e.ExtendedCode)
	}
	return -1
}

func implicit(busyMs string) []knob {
	busy := "5000 ms (mattn's default: no busy_timeout knob given)"
	if busyMs != "" {
		busy = busyMs + " ms (from the busy_timeout knob, as the DSN's _busy_timeout)"
	}
	return []knob{
		{"_busy_timeout", busy},
		{"_txlock", "deferred (db.Begin's mode; unused: BEGIN <mode> is sent explicitly)"},
		{"cache", "private (no shared cache)"},
		{"statement_cache", "none (database/sql; statements prepared once on the one conn)"},
		{"connections", "1 (db.SetMaxOpenConns(1), one *sql.Conn)"},
	}
}
