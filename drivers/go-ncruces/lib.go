// litebench driver go-ncruces: github.com/ncruces/go-sqlite3 through its database/sql driver
// (SQLite compiled to WebAssembly and that translated to Go, so no cgo; its SQLite is the one
// in github.com/ncruces/go-sqlite3-wasm).
//
// What ncruces sets by itself, reported as implicit: a busy timeout of one minute (a Go-side
// busy handler) when the DSN has no _pragma (litebench's busy_timeout knob goes in as
// _pragma=busy_timeout(N), which replaces it), _txlock=immediate for db.Begin (unused: this
// driver sends its own BEGIN <mode> on its one conn), no statement cache.
package main

import (
	"errors"
	"net/url"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver"
)

const (
	driverName = "go-ncruces"
	sqlDriver  = "sqlite3"
	modulePath = "github.com/ncruces/go-sqlite3"
)

func dsn(path, busyMs string) string {
	q := url.Values{}
	if busyMs != "" {
		q.Set("_pragma", "busy_timeout("+busyMs+")")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

func extendedCode(err error) int {
	// A failed step comes as *sqlite3.Error; some paths (BEGIN refused by the busy handler)
	// return the bare code, which is an error type of its own.
	var e *sqlite3.Error
	var x sqlite3.ExtendedErrorCode
	var c sqlite3.ErrorCode
	switch {
	case errors.As(err, &e):
		return int(e.ExtendedCode())
	case errors.As(err, &x):
		return int(x)
	case errors.As(err, &c):
		return int(c)
	}
	return -1
}

func implicit(busyMs string) []knob {
	busy := "60000 ms (ncruces's default without _pragma: no busy_timeout knob given)"
	if busyMs != "" {
		busy = busyMs + " ms (from the busy_timeout knob, as the DSN's _pragma=busy_timeout)"
	}
	return []knob{
		{"busy_timeout", busy},
		{"_txlock", "immediate (db.Begin's mode; unused: BEGIN <mode> is sent explicitly)"},
		{"statement_cache", "none (database/sql; statements prepared once on the one conn)"},
		{"connections", "1 (db.SetMaxOpenConns(1), one *sql.Conn)"},
	}
}
