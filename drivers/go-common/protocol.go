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
	"runtime"
	"strconv"
	"strings"
	"syscall"
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
	// Protocol 3 (program below): each is the earlier step whose rows this one runs over (-1:
	// none); need ends the transaction where this step returns no row; keep sends its rows
	// back; collect keeps its rows for a later step's each or ref.
	each                      int
	need, keep, collect, opts bool
}

// ref is {"ref": [step, column]}: a value an earlier step of the transaction returned, bound
// when its step runs (protocol 3).
type ref struct{ step, column int }

// nowUs is {"now_us": offset}: the wall clock in microseconds when the try started, plus offset
// (protocol 3: a queue job's enqueue time).
type nowUs struct{ offset int64 }

// keptRow is a row a keep step returned: [step, values].
type keptRow struct {
	step int
	row  []any
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
	// fancy: a step has options or refs (protocol 3), run by runProgram; kept: what its keep
	// steps returned in the last try.
	fancy bool
	kept  []keptRow
	due   time.Duration
	open  bool // due is set (open loop)
	steps []step
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
		if n, ok := x["now_us"].(json.Number); ok {
			off, err := n.Int64()
			return nowUs{off}, err
		}
		if r, ok := x["ref"].([]interface{}); ok && len(r) == 2 {
			s, err1 := r[0].(json.Number).Int64()
			c, err2 := r[1].(json.Number).Int64()
			if err1 == nil && err2 == nil {
				return ref{int(s), int(c)}, nil
			}
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
			if len(s) != 2 && len(s) != 3 {
				return nil, fmt.Errorf("txn %d step %d: expected [statement, params] or [statement, params, options]", i, j)
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
			txns[i].steps[j] = step{stmt: pos, sql: text, params: params, each: -1}
			st := &txns[i].steps[j]
			if len(s) == 3 {
				o, _ := s[2].(map[string]interface{})
				if e, ok := o["each"].(json.Number); ok {
					n, _ := e.Int64()
					st.each = int(n)
				}
				st.need, _ = o["need"].(bool)
				st.keep, _ = o["keep"].(bool)
				st.opts = st.each >= 0 || st.need || st.keep
			}
			for _, p := range params {
				switch p.(type) {
				case ref, nowUs:
					st.opts = true
				}
			}
			txns[i].fancy = txns[i].fancy || st.opts
		}
		// A step whose rows a later one reads keeps them while the transaction runs.
		for _, st := range txns[i].steps {
			mark := func(k int) {
				if k >= 0 && k < len(txns[i].steps) {
					txns[i].steps[k].collect = true
				}
			}
			mark(st.each)
			for _, p := range st.params {
				if r, ok := p.(ref); ok {
					mark(r.step)
				}
			}
		}
	}
	return txns, nil
}

// stepRunner runs one statement of a transaction for runProgram: its rows where it returns
// rows (reader), else the rows it changed.
type stepRunner interface {
	runStep(st *step, params []any) (rows [][]any, changed int64, reader bool, err error)
}

// runProgram runs a transaction's steps with each, need, keep and refs (protocol 3): a run of
// consecutive steps with the same each runs once per row of that step, in order; a ref binds a
// column of the row its each runs over, else of its step's first row. Sets *stepped once a step
// ran; fills t.kept. Returns the rows returned in all and the last step's count.
func runProgram(r stepRunner, t *txn, stepped *bool) (int64, int64, error) {
	got := map[int][][]any{}
	t.kept = t.kept[:0]
	now := time.Now().UnixMicro()
	var total, last int64
	// one runs step k; row is the row of step each it runs over (nil outside an each), passed
	// as is so that nothing is allocated per row but the step's parameters.
	one := func(k, each int, row []any) (int64, error) {
		st := &t.steps[k]
		params := make([]any, len(st.params))
		for i, p := range st.params {
			if n, ok := p.(nowUs); ok {
				p = now + n.offset
			}
			if rf, ok := p.(ref); ok {
				r := row
				if rf.step != each || row == nil {
					r = nil
					if len(got[rf.step]) > 0 {
						r = got[rf.step][0]
					}
				}
				if rf.column < len(r) {
					p = r[rf.column]
				} else {
					p = nil
				}
			}
			params[i] = p
		}
		rows, changed, reader, err := r.runStep(st, params)
		if err != nil {
			return 0, err
		}
		*stepped = true
		if !reader {
			last = changed
			return 0, nil
		}
		if st.collect {
			got[k] = append(got[k], rows...)
		}
		if st.keep {
			for _, row := range rows {
				t.kept = append(t.kept, keptRow{k, row})
			}
		}
		last = int64(len(rows))
		return last, nil
	}
	for i := 0; i < len(t.steps); {
		st := &t.steps[i]
		if st.each >= 0 {
			j := i
			for j < len(t.steps) && t.steps[j].each == st.each {
				j++
			}
			for _, row := range got[st.each] {
				for k := i; k < j; k++ {
					n, err := one(k, st.each, row)
					if err != nil {
						return total, last, err
					}
					total += n
				}
			}
			i = j
			continue
		}
		n, err := one(i, -1, nil)
		if err != nil {
			return total, last, err
		}
		total += n
		if st.need && n == 0 {
			return total, 0, nil
		}
		i++
	}
	return total, last, nil
}

// sleep blocks the thread for d with nanosleep(2), as litebench's own loop sleeps. The runtime's
// time.Sleep wakes about a millisecond late for sleeps under a few milliseconds (measured here:
// 50 us slept 1.06 ms late at the median, 500 us 0.60 ms; nanosleep 79 and 91 us), and an open
// loop's latency, measured from the intended start, would carry it.
func sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

// waitUntil waits for an open loop's intended start as litebench's own loop does: it sleeps
// while the start is more than 2 ms away, then in 50 us steps, then yields for the last 100 us.
func waitUntil(at time.Time) {
	for {
		left := time.Until(at)
		switch {
		case left <= 0:
			return
		case left > 2*time.Millisecond:
			sleep(min(left-time.Millisecond, 50*time.Millisecond))
		case left > 100*time.Microsecond:
			sleep(50 * time.Microsecond)
		default:
			runtime.Gosched()
		}
	}
}

type result struct {
	outcome        string
	start, latency time.Duration
	tries          int
	rows, last     int64
	kept           []keptRow
}

// runBatch is the timed loop: between the two clock reads only the engine's try, the retry
// rule and the backoff sleep.
func runBatch(e engine, txns []txn, maxTries int, backoff []int64, t0 time.Time, res []result) map[int]string {
	var errs map[int]string
	for i := range txns {
		t := &txns[i]
		var start time.Duration
		if t.open {
			waitUntil(t0.Add(t.due))
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
			sleep(time.Duration(backoff[min(tries-1, len(backoff)-1)]))
		}
		end := time.Since(t0)
		res[i] = result{outcome, start, end - start, tries, rows, last, nil}
		if outcome == "ok" && len(t.kept) > 0 {
			res[i].kept = t.kept
		}
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
	first := true
	for i, r := range res {
		if len(r.kept) == 0 {
			continue
		}
		if first {
			b = append(b, `,"kept":{`...)
			first = false
		} else {
			b = append(b, ',')
		}
		rows := make([][2]any, len(r.kept))
		for k, kr := range r.kept {
			row := make([]any, len(kr.row))
			for c, v := range kr.row {
				if by, ok := v.([]byte); ok {
					v = map[string]string{"blob": base64.StdEncoding.EncodeToString(by)}
				}
				row[c] = v
			}
			rows[k] = [2]any{kr.step, row}
		}
		kb, _ := json.Marshal(rows)
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `":`...)
		b = append(b, kb...)
	}
	if !first {
		b = append(b, '}')
	}
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
