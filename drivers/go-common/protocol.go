// The litebench driver protocol, version 2 (docs/drivers.md), shared by every Go driver.
//
// It lives once, in drivers/go-common/: each Go driver's `includes` file names this folder, and
// litebench installs its files beside the driver's own in the driver's folder in the cache
// (docs/drivers.md), where `go build` finds them in the same package.
//
// What it does: reads newline-delimited JSON on stdin, hands open and each transaction to an
// engine (the database/sql one in sqlconn.go, or the no-op one), times each transaction with
// Go's monotonic clock (time.Now carries it; time.Since reads it), applies litebench's retry
// rule (max_tries, backoff_ns) and writes one done line per batch. Parameters are decoded
// (json.Number into int64 or float64, base64 into []byte) when a batch is read, outside the
// timed loop.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

type knob struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type statement struct {
	ID  int    `json:"id"`
	SQL string `json:"sql"`
}

type txnMsg struct {
	Op         int             `json:"op"`
	DueNs      *int64          `json:"due_ns"`
	Autocommit bool            `json:"autocommit"`
	Literal    bool            `json:"literal"`
	Begin      string          `json:"begin"`
	Rejectable bool            `json:"rejectable"`
	Steps      [][]interface{} `json:"steps"`
}

type message struct {
	Type       string      `json:"type"`
	Path       string      `json:"path"`
	Knobs      []knob      `json:"knobs"`
	Statements []statement `json:"statements"`
	MaxTries   int         `json:"max_tries"`
	BackoffNs  []int64     `json:"backoff_ns"`
	Seq        int64       `json:"seq"`
	Txns       []txnMsg    `json:"txns"`
}

type opened struct {
	Type           string   `json:"type"`
	Driver         string   `json:"driver"`
	Runtime        string   `json:"runtime"`
	Library        string   `json:"library"`
	SQLiteVersion  string   `json:"sqlite_version"`
	CompileOptions []string `json:"compile_options"`
	Knobs          []knob   `json:"knobs"`
	Implicit       []knob   `json:"implicit"`
}

// A step ready to run: the statement's index and its bound values; in a literal transaction,
// its text instead, prepared when it runs.
type step struct {
	stmt   int
	sql    string
	params []any
}

type txn struct {
	autocommit bool
	// literal (protocol 2): each step's text run as written (a replayed log), its own BEGIN
	// and COMMIT included, with no BEGIN/COMMIT around them and never retried.
	literal bool
	// begin (protocol 3): the mode this transaction opens in ("": the begin knob's);
	// rejectable: a constraint violation is one of its expected ends (outcome "rejected").
	begin      string
	rejectable bool
	due        time.Duration
	open       bool // due is set (open loop)
	steps      []step
}

// What a database engine does for the protocol loop. try runs one try of a transaction
// (BEGIN, its steps, COMMIT) and returns its outcome, the rows stepped through, the last
// step's count (protocol 3: its rows, or the rows it changed) and, for outcome "error", the
// message; on a lock outcome it has already rolled back.
type engine interface {
	open(m *message) (*opened, *protoError)
	try(t *txn) (outcome string, rows, last int64, msg string)
	close() error
}

type protoError struct {
	Type    string `json:"type"`
	Stage   string `json:"stage"`
	Message string `json:"message"`
	Knob    string `json:"knob,omitempty"`
}

var out = bufio.NewWriterSize(os.Stdout, 1<<16)

func send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

func fail(e *protoError) {
	e.Type = "error"
	send(e)
	os.Exit(1)
}

func decodeValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, string:
		return x, nil
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			return strconv.ParseFloat(s, 64)
		}
		return strconv.ParseInt(s, 10, 64)
	case map[string]interface{}:
		if b, ok := x["blob"].(string); ok {
			return base64.StdEncoding.DecodeString(b)
		}
	}
	return nil, fmt.Errorf("unsupported value %v", v)
}

// positions maps each statement's id to its place in the open message's list, where the
// engine holds its prepared statement: ids need not run 0..n-1 (litebench leaves out the
// transaction control it recorded, so a script's ids skip its BEGIN and COMMIT).
func positions(stmts []statement) map[int64]int {
	at := make(map[int64]int, len(stmts))
	for i, st := range stmts {
		at[int64(st.ID)] = i
	}
	return at
}

func decodeBatch(m *message, at map[int64]int, texts map[int64]string) ([]txn, error) {
	txns := make([]txn, len(m.Txns))
	for i, t := range m.Txns {
		txns[i].autocommit, txns[i].literal = t.Autocommit, t.Literal
		txns[i].begin, txns[i].rejectable = t.Begin, t.Rejectable
		if t.DueNs != nil {
			txns[i].open, txns[i].due = true, time.Duration(*t.DueNs)
		}
		txns[i].steps = make([]step, len(t.Steps))
		for j, s := range t.Steps {
			if len(s) != 2 {
				return nil, fmt.Errorf("txn %d step %d: expected [statement, params]", i, j)
			}
			id, err := s[0].(json.Number).Int64()
			pos, known := at[id]
			text, said := texts[id]
			if t.Literal {
				known = said
			}
			if err != nil || !known {
				return nil, fmt.Errorf("txn %d step %d: unknown statement %v", i, j, s[0])
			}
			raw, _ := s[1].([]interface{})
			params := make([]any, len(raw))
			for k, v := range raw {
				if params[k], err = decodeValue(v); err != nil {
					return nil, fmt.Errorf("txn %d step %d: %v", i, j, err)
				}
			}
			txns[i].steps[j] = step{pos, text, params}
		}
	}
	return txns, nil
}

type result struct {
	outcome        string
	start, latency time.Duration
	tries          int
	rows, last     int64
}

// runBatch is the timed loop: between the two clock reads only the engine's try, the retry
// rule and the backoff sleep.
func runBatch(e engine, txns []txn, maxTries int, backoff []int64, t0 time.Time, res []result) map[int]string {
	var errs map[int]string
	for i := range txns {
		t := &txns[i]
		var start time.Duration
		if t.open {
			if wait := time.Until(t0.Add(t.due)); wait > 0 {
				time.Sleep(wait)
			}
			start = t.due
		} else {
			start = time.Since(t0)
		}
		var outcome, msg string
		var rows, last int64
		tries := 0
		for {
			outcome, rows, last, msg = e.try(t)
			tries++
			if outcome == "ok" || outcome == "error" || outcome == "rejected" || tries >= maxTries {
				break
			}
			time.Sleep(time.Duration(backoff[min(tries-1, len(backoff)-1)]))
		}
		end := time.Since(t0)
		res[i] = result{outcome, start, end - start, tries, rows, last}
		if outcome == "error" {
			if errs == nil {
				errs = map[int]string{}
			}
			errs[i] = msg
		}
	}
	return errs
}

func writeDone(seq int64, res []result, errs map[int]string) {
	b := make([]byte, 0, 64*len(res)+64)
	b = append(b, `{"type":"done","seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `,"results":[`...)
	for i, r := range res {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `["`...)
		b = append(b, r.outcome...)
		b = append(b, `",`...)
		b = strconv.AppendInt(b, int64(r.start), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.latency), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.tries), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.rows, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.last, 10)
		b = append(b, ']')
	}
	b = append(b, ']')
	if len(errs) > 0 {
		m := make(map[string]string, len(errs))
		for k, v := range errs {
			m[strconv.Itoa(k)] = v
		}
		eb, _ := json.Marshal(m)
		b = append(b, `,"errors":`...)
		b = append(b, eb...)
	}
	b = append(b, "}\n"...)
	out.Write(b)
	out.Flush()
}

func serve(e engine) {
	dec := json.NewDecoder(bufio.NewReaderSize(os.Stdin, 1<<20))
	dec.UseNumber()
	var m message
	if err := dec.Decode(&m); err == io.EOF {
		os.Exit(0)
	} else if err != nil || m.Type != "open" {
		fail(&protoError{Stage: "open", Message: fmt.Sprintf("expected an open message first (%v)", err)})
	}
	o, perr := e.open(&m)
	if perr != nil {
		fail(perr)
	}
	send(o)
	at, maxTries, backoff := positions(m.Statements), max(1, m.MaxTries), m.BackoffNs
	texts := make(map[int64]string, len(m.Statements))
	for _, st := range m.Statements {
		texts[int64(st.ID)] = st.SQL
	}
	if len(backoff) == 0 {
		backoff = []int64{0}
	}
	var t0 time.Time
	started := false
	type pending struct {
		seq  int64
		txns []txn
	}
	var queue []pending
	for {
		var m message
		if err := dec.Decode(&m); err == io.EOF {
			os.Exit(0)
		} else if err != nil {
			fail(&protoError{Stage: "batch", Message: "reading stdin: " + err.Error()})
		}
		switch m.Type {
		case "go":
			t0, started = time.Now(), true
		case "batch":
			// Protocol 2: statements first used in this batch, run by their text.
			for _, st := range m.Statements {
				texts[int64(st.ID)] = st.SQL
			}
			txns, err := decodeBatch(&m, at, texts)
			if err != nil {
				fail(&protoError{Stage: "batch", Message: fmt.Sprintf("batch %d: %v", m.Seq, err)})
			}
			queue = append(queue, pending{m.Seq, txns})
		case "close":
			if err := e.close(); err != nil {
				fmt.Fprintln(os.Stderr, "close:", err)
			}
			send(map[string]string{"type": "closed"})
			os.Exit(0)
		}
		if started {
			for _, p := range queue {
				res := make([]result, len(p.txns))
				errs := runBatch(e, p.txns, maxTries, backoff, t0, res)
				writeDone(p.seq, res, errs)
			}
			queue = queue[:0]
		}
	}
}
