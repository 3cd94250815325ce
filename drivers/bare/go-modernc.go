// Bare loop for go-modernc's overhead figure: crud's read and update through modernc.org/sqlite and
// database/sql directly (one conn, prepared statements, BEGIN IMMEDIATE ... COMMIT, or with
// "read": autocommit point reads alone), timed with Go's monotonic clock. Usage: DB N [read];
// prints ns per transaction. drivers/bare/measure.py builds
// it inside the driver's set-up module and runs it beside the driver on the same statements.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	ctx, n := context.Background(), must(strconv.Atoi(os.Args[2]))
	db := must(sql.Open("sqlite", "file:"+os.Args[1]))
	db.SetMaxOpenConns(1)
	c := must(db.Conn(ctx))
	must(c.ExecContext(ctx, "PRAGMA journal_mode=wal"))
	must(c.ExecContext(ctx, "PRAGMA synchronous=normal"))
	var rows int
	must(0, c.QueryRowContext(ctx, "SELECT count(*) FROM crud").Scan(&rows))
	ids, values := make([]int64, n), make([]string, n)
	for i := range n {
		ids[i], values[i] = int64(1+(i*7919)%rows), fmt.Sprintf("bare%096d", i)
	}
	begin, commit := must(c.PrepareContext(ctx, "BEGIN IMMEDIATE")), must(c.PrepareContext(ctx, "COMMIT"))
	read := must(c.PrepareContext(ctx, "SELECT value FROM crud WHERE id = ?"))
	update := must(c.PrepareContext(ctx, "UPDATE crud SET value = ? WHERE id = ?"))
	reads := len(os.Args) > 3 && os.Args[3] == "read"
	start := time.Now()
	for i := range n {
		if reads {
			r := must(read.QueryContext(ctx, ids[i]))
			for r.Next() {
			}
			must(0, r.Close())
			continue
		}
		must(begin.ExecContext(ctx))
		if i%2 == 0 {
			r := must(read.QueryContext(ctx, ids[i]))
			for r.Next() {
			}
			must(0, r.Close())
		} else {
			must(update.ExecContext(ctx, values[i], ids[i]))
		}
		must(commit.ExecContext(ctx))
	}
	fmt.Println(time.Since(start).Nanoseconds() / int64(n))
}

func must[T any](v T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return v
}
