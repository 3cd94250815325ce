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
	sqliteConstraint   = 19
)

type sqlEngine struct {
	ctx   context.Context
	db    *sql.DB
	conn  *sql.Conn
	stmts []*sql.Stmt
	// reads: the statement returns rows (run with Query and drained); the others run with
	// Exec, as an application runs a write, and count the rows they changed.
	reads                   []bool
	begin, commit, rollback *sql.Stmt
	// modes: BEGIN in each mode a transaction may name (protocol 3).
	modes map[string]*sql.Stmt
}

// returnsRows says whether a statement's text returns rows, by its first word (SELECT, WITH,
// VALUES, PRAGMA, EXPLAIN) or a RETURNING clause: database/sql has no column count before a
// statement runs.
func returnsRows(text string) bool {
	up := strings.ToUpper(strings.TrimLeft(text, " \t\r\n("))
	for _, w := range []string{"SELECT", "WITH", "VALUES", "PRAGMA", "EXPLAIN"} {
		if strings.HasPrefix(up, w) {
			return true
		}
	}
	return strings.Contains(up, "RETURNING")
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
	s.reads = make([]bool, len(stmts))
	for i, st := range stmts {
		p, err := s.conn.PrepareContext(s.ctx, st.SQL)
		if err != nil {
			return &protoError{Stage: "prepare", Message: fmt.Sprintf("statement %d (%s): %v", st.ID, st.SQL, err)}
		}
		s.stmts[i], s.reads[i] = p, returnsRows(st.SQL)
	}
	var err error
	s.modes = map[string]*sql.Stmt{}
	deferred, immediate, exclusive := new(*sql.Stmt), new(*sql.Stmt), new(*sql.Stmt)
	for _, p := range []struct {
		to  **sql.Stmt
		sql string
	}{{&s.begin, "BEGIN " + strings.ToUpper(mode)}, {&s.commit, "COMMIT"}, {&s.rollback, "ROLLBACK"},
		{deferred, "BEGIN DEFERRED"}, {immediate, "BEGIN IMMEDIATE"}, {exclusive, "BEGIN EXCLUSIVE"}} {
		if *p.to, err = s.conn.PrepareContext(s.ctx, p.sql); err != nil {
			return &protoError{Stage: "prepare", Message: p.sql + ": " + err.Error()}
		}
	}
	s.modes["deferred"], s.modes["immediate"], s.modes["exclusive"] = *deferred, *immediate, *exclusive
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
func (s *sqlEngine) fail(err error, stepped, inTxn, rejectable bool) (string, int64, int64, string) {
	if inTxn {
		s.rollback.ExecContext(s.ctx) // its error (no transaction active) is of no interest
	}
	code := extendedCode(err)
	switch {
	case code == sqliteBusySnapshot:
		return "busy_snapshot", 0, 0, ""
	case code&0xff == sqliteBusy && stepped:
		return "busy_upgrade", 0, 0, ""
	case code&0xff == sqliteBusy:
		return "busy_timeout", 0, 0, ""
	case code&0xff == sqliteLocked:
		return "locked", 0, 0, ""
	case code&0xff == sqliteConstraint && rejectable:
		return "rejected", 0, 0, ""
	}
	return "error", 0, 0, err.Error()
}

// literal runs a literal transaction's statements by their text on the one conn (so a log's own
// BEGIN holds across them): never rolled back here, an error is the statement's outcome.
func (s *sqlEngine) literal(t *txn) (string, int64, int64, string) {
	var rows int64
	for _, st := range t.steps {
		n, err := drain(s.conn.QueryContext(s.ctx, st.sql, st.params...))
		rows += n
		if err != nil {
			return "error", rows, 0, err.Error()
		}
	}
	return "ok", rows, 0, ""
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

func (s *sqlEngine) try(t *txn) (string, int64, int64, string) {
	if t.literal {
		return s.literal(t)
	}
	inTxn := !t.autocommit
	if inTxn {
		begin := s.begin
		if m, ok := s.modes[t.begin]; ok {
			begin = m
		}
		if _, err := begin.ExecContext(s.ctx); err != nil {
			return s.fail(err, false, inTxn, t.rejectable)
		}
	}
	var rows, last int64
	stepped := false
	if t.fancy {
		var err error
		if rows, last, err = runProgram(s, t, &stepped); err != nil {
			return s.fail(err, stepped, inTxn, t.rejectable)
		}
	}
	for _, st := range t.steps {
		if t.fancy {
			break // run above
		}
		var err error
		if s.reads[st.stmt] {
			last, err = drain(s.stmts[st.stmt].QueryContext(s.ctx, st.params...))
			rows += last
		} else {
			var r sql.Result
			if r, err = s.stmts[st.stmt].ExecContext(s.ctx, st.params...); err == nil {
				last, err = r.RowsAffected()
			}
		}
		if err != nil {
			return s.fail(err, stepped, inTxn, t.rejectable)
		}
		stepped = true
	}
	if inTxn {
		if _, err := s.commit.ExecContext(s.ctx); err != nil {
			return s.fail(err, stepped, inTxn, t.rejectable)
		}
	}
	return "ok", rows, last, ""
}

// runStep runs one step for runProgram (protocol 3): a statement that returns rows with Query,
// its rows scanned; any other with Exec.
func (s *sqlEngine) runStep(st *step, params []any) ([][]any, int64, bool, error) {
	p := s.stmts[st.stmt]
	if !s.reads[st.stmt] {
		r, err := p.ExecContext(s.ctx, params...)
		if err != nil {
			return nil, 0, false, err
		}
		n, err := r.RowsAffected()
		return nil, n, false, err
	}
	rs, err := p.QueryContext(s.ctx, params...)
	if err != nil {
		return nil, 0, true, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, 0, true, err
	}
	var out [][]any
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, 0, true, err
		}
		out = append(out, row)
	}
	return out, 0, true, rs.Err()
}

func (s *sqlEngine) close() error {
	for _, p := range append(s.stmts, s.begin, s.commit, s.rollback, s.modes["deferred"], s.modes["immediate"], s.modes["exclusive"]) {
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
