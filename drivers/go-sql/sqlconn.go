// The database/sql engine shared by the three Go SQLite drivers (drivers/go-sql/, named in
// each one's `includes`; noop-go has no database and leaves it out). lib.go, one per driver, names the
// database/sql driver, builds its DSN, reads its extended error codes and lists what it sets
// by itself.
//
// Why it looks the way it does: ONE *sql.Conn per process (db.SetMaxOpenConns(1)), so every
// PRAGMA and every transaction is on the same SQLite connection, and transactions are opened
// with an explicit, prepared `BEGIN <mode>` on that conn rather than db.Begin, whose mode is
// the driver's _txlock default. Statements are prepared once on the conn (database/sql has no
// statement cache of its own); each step is QueryContext plus rows.Next to the end, so a
// query's rows are fetched and counted and a write runs to completion alike.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

const (
	sqliteBusy         = 5
	sqliteLocked       = 6
	sqliteBusySnapshot = 517
)

type sqlEngine struct {
	ctx                     context.Context
	db                      *sql.DB
	conn                    *sql.Conn
	stmts                   []*sql.Stmt
	begin, commit, rollback *sql.Stmt
}

func (s *sqlEngine) queryString(q string) (string, error) {
	var v sql.NullString
	err := s.conn.QueryRowContext(s.ctx, q).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v.String, err
}

func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}

func (s *sqlEngine) open(m *message) (*opened, *protoError) {
	s.ctx = context.Background()
	busy, mode := "", "deferred"
	for _, k := range m.Knobs {
		switch k.Name {
		case "busy_timeout":
			if _, err := strconv.ParseUint(k.Value, 10, 31); err != nil {
				return nil, &protoError{Stage: "knob", Knob: k.Name, Message: "busy_timeout=" + k.Value + ": expected milliseconds"}
			}
			busy = k.Value
		case "begin":
			mode = strings.ToLower(k.Value)
			if mode != "deferred" && mode != "immediate" && mode != "exclusive" {
				return nil, &protoError{Stage: "knob", Knob: k.Name, Message: "begin=" + k.Value + ": expected deferred, immediate or exclusive"}
			}
		}
	}
	db, err := sql.Open(sqlDriver, dsn(m.Path, busy))
	if err != nil {
		return nil, &protoError{Stage: "open", Message: m.Path + ": " + err.Error()}
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s.db = db
	if s.conn, err = db.Conn(s.ctx); err != nil {
		return nil, &protoError{Stage: "open", Message: m.Path + ": " + err.Error()}
	}
	readback := make([]knob, 0, len(m.Knobs))
	for _, k := range m.Knobs {
		v := mode
		if k.Name != "begin" {
			if k.Name != "busy_timeout" {
				if _, err := s.conn.ExecContext(s.ctx, "PRAGMA "+k.Name+"="+k.Value); err != nil {
					return nil, &protoError{Stage: "knob", Knob: k.Name, Message: k.Name + "=" + k.Value + ": " + err.Error()}
				}
			}
			if v, err = s.queryString("PRAGMA " + k.Name); err != nil {
				return nil, &protoError{Stage: "knob", Knob: k.Name, Message: "reading back " + k.Name + ": " + err.Error()}
			}
		}
		readback = append(readback, knob{k.Name, v})
	}
	if perr := s.prepare(m.Statements, mode); perr != nil {
		return nil, perr
	}
	return s.describe(readback, busy)
}

func (s *sqlEngine) prepare(stmts []statement, mode string) *protoError {
	s.stmts = make([]*sql.Stmt, len(stmts))
	for i, st := range stmts {
		p, err := s.conn.PrepareContext(s.ctx, st.SQL)
		if err != nil {
			return &protoError{Stage: "prepare", Message: fmt.Sprintf("statement %d (%s): %v", st.ID, st.SQL, err)}
		}
		s.stmts[i] = p
	}
	var err error
	for _, p := range []struct {
		to  **sql.Stmt
		sql string
	}{{&s.begin, "BEGIN " + strings.ToUpper(mode)}, {&s.commit, "COMMIT"}, {&s.rollback, "ROLLBACK"}} {
		if *p.to, err = s.conn.PrepareContext(s.ctx, p.sql); err != nil {
			return &protoError{Stage: "prepare", Message: p.sql + ": " + err.Error()}
		}
	}
	return nil
}

func (s *sqlEngine) describe(readback []knob, busy string) (*opened, *protoError) {
	version, err := s.queryString("SELECT sqlite_version()")
	if err != nil {
		return nil, &protoError{Stage: "open", Message: "sqlite_version(): " + err.Error()}
	}
	rows, err := s.conn.QueryContext(s.ctx, "PRAGMA compile_options")
	if err != nil {
		return nil, &protoError{Stage: "open", Message: "PRAGMA compile_options: " + err.Error()}
	}
	var opts []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, &protoError{Stage: "open", Message: "PRAGMA compile_options: " + err.Error()}
		}
		opts = append(opts, o)
	}
	rows.Close()
	return &opened{
		Type:           "opened",
		Driver:         driverName,
		Runtime:        "Go " + strings.TrimPrefix(runtime.Version(), "go"),
		Library:        modulePath + " " + moduleVersion(modulePath),
		SQLiteVersion:  version,
		CompileOptions: opts,
		Knobs:          readback,
		Implicit:       implicit(busy),
	}, nil
}

// fail classifies a failed try from the library's extended error code and rolls back.
func (s *sqlEngine) fail(err error, stepped, inTxn bool) (string, int64, string) {
	if inTxn {
		s.rollback.ExecContext(s.ctx) // its error (no transaction active) is of no interest
	}
	code := extendedCode(err)
	switch {
	case code == sqliteBusySnapshot:
		return "busy_snapshot", 0, ""
	case code&0xff == sqliteBusy && stepped:
		return "busy_upgrade", 0, ""
	case code&0xff == sqliteBusy:
		return "busy_timeout", 0, ""
	case code&0xff == sqliteLocked:
		return "locked", 0, ""
	}
	return "error", 0, err.Error()
}

// literal runs a literal transaction's statements by their text on the one conn (so a log's own
// BEGIN holds across them): never rolled back here, an error is the statement's outcome.
func (s *sqlEngine) literal(t *txn) (string, int64, string) {
	var rows int64
	for _, st := range t.steps {
		n, err := drain(s.conn.QueryContext(s.ctx, st.sql, st.params...))
		rows += n
		if err != nil {
			return "error", rows, err.Error()
		}
	}
	return "ok", rows, ""
}

// drain steps through every row of a query's result and closes it: the rows, and the first
// error of the query, the stepping or the close.
func drain(r *sql.Rows, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	var rows int64
	for r.Next() {
		rows++
	}
	err = r.Err()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return rows, err
}

func (s *sqlEngine) try(t *txn) (string, int64, string) {
	if t.literal {
		return s.literal(t)
	}
	inTxn := !t.autocommit
	if inTxn {
		if _, err := s.begin.ExecContext(s.ctx); err != nil {
			return s.fail(err, false, inTxn)
		}
	}
	var rows int64
	stepped := false
	for _, st := range t.steps {
		n, err := drain(s.stmts[st.stmt].QueryContext(s.ctx, st.params...))
		if err != nil {
			return s.fail(err, stepped, inTxn)
		}
		rows += n
		stepped = true
	}
	if inTxn {
		if _, err := s.commit.ExecContext(s.ctx); err != nil {
			return s.fail(err, stepped, inTxn)
		}
	}
	return "ok", rows, ""
}

func (s *sqlEngine) close() error {
	for _, p := range append(s.stmts, s.begin, s.commit, s.rollback) {
		if p != nil {
			p.Close()
		}
	}
	if err := s.conn.Close(); err != nil {
		return err
	}
	return s.db.Close()
}

func main() {
	serve(&sqlEngine{})
}
