/* pgbench's select-only transaction on SQLite, by a bare loop over the C API: N clients as
 * pthreads of one process or as fork()ed processes, each with its own connection, the same
 * statement and the same table as litebench's `script --param builtin=select-only`. It is the
 * floor litebench's threads and client processes are measured against
 * (benches/process-gap.sh), and it shows SQLite's own gap between the two: a WAL read
 * transaction takes a read lock on the `-shm` file, which connections in one process share
 * through SQLite's in-process lock table and separate processes each take from the kernel.
 *
 * Build (the script does it): cc -O2 -pthread client_baseline.c libsqlite3.a -ldl -lm, against
 * the static library libsqlite3-sys built for litebench, so both run the same SQLite with the
 * same compile-time options.
 *
 *   client_baseline init DB SCALE                    pgbench's tables at SCALE, WAL
 *   client_baseline run DB threads|processes CLIENTS SECONDS|-tN SCALE
 *
 * BASELINE_OWN_FILE=1 (an experiment): client I opens DB.I, a copy of its own, so that nothing
 * is shared between clients but the machine.
 *
 * `run` prints one line: mode, clients, transactions, seconds, tx/s (the sum over the clients
 * of each one's transactions over its own time). SECONDS runs each client that long after a
 * common start; -tN runs N transactions per client (for instruction counts).
 */
#include "sqlite3.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ACCOUNTS 100000

static void die(sqlite3 *db, const char *what) {
  fprintf(stderr, "client_baseline: %s: %s\n", what, db ? sqlite3_errmsg(db) : "failed");
  exit(1);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void exec(sqlite3 *db, const char *sql) {
  if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) die(db, sql);
}

/* pgbench's tables and rows at `scale`, as litebench's script workload makes them (its
 * builtin.rs): blank fillers of the accounts' full width. */
static void init(const char *path, long scale) {
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) die(db, path);
  exec(db, "PRAGMA journal_mode=WAL;"
           "CREATE TABLE pgbench_branches (bid INTEGER NOT NULL PRIMARY KEY, bbalance INTEGER, filler CHAR(88));"
           "CREATE TABLE pgbench_tellers (tid INTEGER NOT NULL PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84));"
           "CREATE TABLE pgbench_accounts (aid INTEGER NOT NULL PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84));"
           "CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TIMESTAMP, filler CHAR(22));"
           "BEGIN");
  char sql[256];
  for (long b = 1; b <= scale; b++) {
    snprintf(sql, sizeof sql, "INSERT INTO pgbench_branches (bid, bbalance) VALUES (%ld, 0)", b);
    exec(db, sql);
  }
  for (long t = 1; t <= 10 * scale; t++) {
    snprintf(sql, sizeof sql, "INSERT INTO pgbench_tellers (tid, bid, tbalance) VALUES (%ld, %ld, 0)", t, (t - 1) / 10 + 1);
    exec(db, sql);
  }
  sqlite3_stmt *ins;
  if (sqlite3_prepare_v2(db, "INSERT INTO pgbench_accounts VALUES (?1, ?2, 0, ?3)", -1, &ins, 0) != SQLITE_OK) die(db, "prepare");
  char filler[85];
  memset(filler, ' ', 84);
  filler[84] = 0;
  for (long a = 1; a <= ACCOUNTS * scale; a++) {
    sqlite3_bind_int64(ins, 1, a);
    sqlite3_bind_int64(ins, 2, (a - 1) / ACCOUNTS + 1);
    sqlite3_bind_text(ins, 3, filler, 84, SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE) die(db, "insert");
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_close(db);
}

struct client {
  const char *path;
  long scale, count; /* count > 0: that many transactions; else run for `seconds` */
  double seconds, start; /* the common start, CLOCK_MONOTONIC */
  uint64_t seed;
  /* out */
  long done;
  double elapsed;
};

static pthread_barrier_t gate;

/* splitmix64: a uniform account id per transaction, as pgbench's random(1, 100000 * scale). */
static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Opens and prepares, waits at the gate (`wait`), then runs its transactions. */
static void client_run(struct client *c, void (*wait)(void)) {
  sqlite3 *db;
  sqlite3_stmt *st;
  /* As litebench opens a trial's connection: read-write, multi-thread mode. */
  char own[4096];
  if (getenv("BASELINE_OWN_FILE")) { /* experiment: a copy per client (PATH.I), no inode shared */
    snprintf(own, sizeof own, "%s.%d", c->path, (int)(c->seed - 42));
    c->path = own;
  }
  if (sqlite3_open_v2(c->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, 0) != SQLITE_OK) die(db, c->path);
  /* Two connections opening a WAL database at once: one recovers the WAL index, the other
   * waits for it rather than failing; a read never waits afterwards. */
  sqlite3_busy_timeout(db, 5000);
  if (sqlite3_prepare_v2(db, "SELECT abalance FROM pgbench_accounts WHERE aid = ?1", -1, &st, 0) != SQLITE_OK) die(db, "prepare");
  wait();
  double t0 = now(), end = t0 + c->seconds;
  long n = 0;
  uint64_t range = (uint64_t)ACCOUNTS * c->scale;
  for (;;) {
    if (c->count > 0 ? n >= c->count : now() >= end) break;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)(next(&c->seed) % range) + 1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) (void)sqlite3_column_int64(st, 0);
    if (rc != SQLITE_DONE) die(db, "select");
    sqlite3_reset(st);
    n++;
  }
  c->elapsed = now() - t0;
  c->done = n;
  sqlite3_finalize(st);
  sqlite3_close(db);
}

static void barrier_wait(void) { pthread_barrier_wait(&gate); }
static void *thread_main(void *arg) {
  client_run(arg, barrier_wait);
  return 0;
}

static int gate_pipe[2];
static void pipe_wait(void) {
  char b;
  if (read(gate_pipe[0], &b, 1) < 0) exit(1); /* 0: the parent closed it, everyone goes */
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "init")) {
    init(argv[2], atol(argv[3]));
    return 0;
  }
  if (argc != 7 || strcmp(argv[1], "run")) {
    fprintf(stderr, "usage: client_baseline init DB SCALE | run DB threads|processes CLIENTS SECONDS|-tN SCALE\n");
    return 2;
  }
  int procs = !strcmp(argv[3], "processes");
  int clients = atoi(argv[4]);
  long count = argv[5][0] == '-' && argv[5][1] == 't' ? atol(argv[5] + 2) : 0;
  double seconds = count ? 0 : atof(argv[5]);
  /* Shared with the children: each writes its own slot. */
  struct client *cs = mmap(0, sizeof *cs * clients, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (cs == MAP_FAILED) die(0, "mmap");
  for (int i = 0; i < clients; i++)
    cs[i] = (struct client){.path = argv[2], .scale = atol(argv[6]), .count = count, .seconds = seconds, .seed = 42 + i};
  if (procs) {
    if (pipe(gate_pipe)) die(0, "pipe");
    for (int i = 0; i < clients; i++) {
      pid_t p = fork();
      if (p < 0) die(0, "fork");
      if (p == 0) {
        close(gate_pipe[1]);
        client_run(&cs[i], pipe_wait);
        _exit(0);
      }
    }
    close(gate_pipe[0]);
    usleep(200000); /* every child opened and prepared (as litebench waits for its ready) */
    close(gate_pipe[1]);
    for (int i = 0; i < clients; i++) {
      int st;
      if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) die(0, "a client process failed");
    }
  } else {
    pthread_t ts[clients];
    pthread_barrier_init(&gate, 0, clients);
    for (int i = 0; i < clients; i++) pthread_create(&ts[i], 0, thread_main, &cs[i]);
    for (int i = 0; i < clients; i++) pthread_join(ts[i], 0);
  }
  long total = 0;
  double tps = 0, longest = 0;
  for (int i = 0; i < clients; i++) {
    total += cs[i].done;
    tps += cs[i].done / cs[i].elapsed;
    if (cs[i].elapsed > longest) longest = cs[i].elapsed;
  }
  printf("%s %d %ld %.3f %.1f\n", procs ? "processes" : "threads", clients, total, longest, tps);
  return 0;
}
