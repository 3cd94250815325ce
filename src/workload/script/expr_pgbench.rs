//! pgbench's own test of its expression language, run on litebench's: the `\set ... debug(...)`
//! lines of the "pgbench expressions" script in PostgreSQL's
//! `src/bin/pgbench/t/001_pgbench_with_server.pl` (commit
//! 23e7b38bfe396f919fdb66057174d29e17086418) with the values that test expects pgbench's log to
//! show, transcribed into a table. The script's `\if` lines and its SQL belong to the commands,
//! not the expressions, and are left out; `:scale`, `:client_id` and `:random_seed` are given
//! as pgbench sets them for that run (`--random-seed=5432`, one client, scale 1).

use super::expr::{parse, Env, Num, Var};
use super::func::debug_text;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// What pgbench's test expects of a command's `debug()` output.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// The text, as the test's `qr{command=N.: TEXT\b}` matches it.
    Shows(&'static str),
    /// A draw: pgbench's value comes from its xoshiro128** generator, litebench's from ChaCha8,
    /// so the same seed gives another number; it must be an integer in this range.
    Drawn(i64, i64),
    /// The test names no value (`\set` without `debug`, or no pattern for it).
    Unchecked,
}
use Want::*;

/// The script's commands in order: pgbench's command number, the variable set, the expression.
const SCRIPT: &[(u32, &str, &str, Want)] = &[
    (1, "i1", "debug(random(10, 19))", Drawn(10, 19)),
    (2, "i2", "debug(random_exponential(100, 199, 10.0))", Drawn(100, 199)),
    (3, "i3", "debug(random_gaussian(1000, 1999, 10.0))", Drawn(1000, 1999)),
    (4, "i4", "debug(abs(-4))", Shows("int 4")),
    (5, "i5", "debug(greatest(5, 4, 3, 2))", Shows("int 5")),
    (6, "i6", "debug(11 + least(-5, -4, -3, -2))", Shows("int 6")),
    (7, "i7", "debug(int(7.3))", Shows("int 7")),
    (8, "i8", "debug(17 / (4|1) + ( 4 + (7 >> 2)))", Shows("int 8")),
    (9, "i9", "debug(- (3 * 4 - (-(~ 1) + -(~ 0))) / -1 + 3 % -1)", Shows("int 9")),
    (10, "ia", "debug(10 + (0 + 0 * 0 - 0 / 1))", Shows("int 10")),
    (11, "ib", "debug(:ia + :scale)", Shows("int 11")),
    (12, "ic", "debug(64 % (((2 + 1 * 2 + (1 # 2) | 4 * (2 & 11)) - (1 << 2)) + 2))", Shows("int 12")),
    (13, "d1", "debug(sqrt(+1.5 * 2.0) * abs(-0.8E1))", Unchecked),
    (14, "d2", "debug(double(1 + 1) * (-75.0 / :foo))", Unchecked),
    (15, "pi", "debug(pi() * 4.9)", Shows("double 15")),
    (16, "d4", "debug(greatest(4, 2, -1.17) * 4.0 * Ln(Exp(1.0)))", Shows("double 16")),
    (17, "d5", "debug(least(-5.18, .0E0, 1.0/0) * -3.3)", Shows("double 17")),
    (18, "i1", "0", Unchecked),
    (19, "d1", "false", Unchecked),
    (20, "id", "debug(random_zipfian(1, 9, 1.3))", Drawn(1, 9)),
    (21, "poweri", "debug(pow(-3,3))", Shows("double -27")),
    (22, "powerd", "debug(pow(2.0,10))", Shows("double 1024")),
    (23, "poweriz", "debug(pow(0,0))", Shows("double 1")),
    (24, "powerdz", "debug(pow(0.0,0.0))", Shows("double 1")),
    (25, "powernegi", "debug(pow(-2,-3))", Shows("double -0.125")),
    (26, "powernegd", "debug(pow(-2.0,-3.0))", Shows("double -0.125")),
    (27, "powernegd2", "debug(power(-5.0,-5.0))", Shows("double -0.00032")),
    (28, "powerov", "debug(pow(9223372036854775807, 2))", Shows("double 8.50705917302346e+37")),
    (29, "powerov2", "debug(pow(10,30))", Shows("double 1e+30")),
    (30, "c0", "debug(1.0 = 0.0 and 1.0 != 0.0)", Shows("boolean false")),
    (31, "c1", "debug(0 = 1 Or 1.0 = 1)", Shows("boolean true")),
    (32, "c4", "debug(case when 0 < 1 then 32 else 0 end)", Shows("int 32")),
    (33, "c5", "debug(case when true then 33 else 0 end)", Shows("int 33")),
    (34, "c6", "debug(case when false THEN -1 when 1 = 1 then 13 + 19 + 2.0 end )", Shows("double 34")),
    (
        35,
        "c7",
        "debug(case when (1 > 0) and (1 >= 0) and (0 < 1) and (0 <= 1) and (0 != 1) and (0 = 0) and (0 <> 1) then 35 else 0 end)",
        Shows("int 35"),
    ),
    (
        36,
        "c8",
        "debug(CASE WHEN (1.0 > 0.0) AND (1.0 >= 0.0) AND (0.0 < 1.0) AND (0.0 <= 1.0) AND (0.0 != 1.0) AND (0.0 = 0.0) AND (0.0 <> 1.0) AND (0.0 = 0.0) THEN 36 ELSE 0 END)",
        Shows("int 36"),
    ),
    (37, "c9", "debug(CASE WHEN NOT FALSE THEN 3 * 12.3333334 END)", Shows("double 37")),
    (38, "ca", "debug(case when false then 0 when 1-1 <> 0 then 1 else 38 end)", Shows("int 38")),
    (39, "cb", "debug(10 + mod(13 * 7 + 12, 13) - mod(-19 * 11 - 17, 19))", Shows("int 39")),
    (
        40,
        "cc",
        "debug(NOT (0 > 1) AND (1 <= 1) AND NOT (0 >= 1) AND (0 < 1) AND NOT (false and true) AND (false OR TRUE) AND (NOT :f) AND (NOT FALSE) AND NOT (NOT TRUE))",
        Shows("boolean true"),
    ),
    (41, "n0", "debug(NULL + NULL * exp(NULL))", Shows("null")),
    (42, "n1", "debug(:n0)", Shows("null")),
    (43, "n2", "debug(NOT (:n0 IS NOT NULL OR :d1 IS NULL))", Shows("boolean true")),
    (44, "n3", "debug(:n0 IS NULL AND :d1 IS NOT NULL AND :d1 NOTNULL)", Shows("boolean true")),
    (45, "n4", "debug(:n0 ISNULL AND NOT :n0 IS TRUE AND :n0 IS NOT FALSE)", Shows("boolean true")),
    (46, "n5", "debug(CASE WHEN :n IS NULL THEN 46 ELSE NULL END)", Shows("int 46")),
    (47, "n6", "debug(:n IS NULL AND NOT :f AND :t)", Shows("boolean true")),
    (
        48,
        "cs",
        "debug(CASE WHEN 1 THEN TRUE END AND CASE WHEN 1.0 THEN TRUE END AND CASE WHEN :n THEN NULL ELSE TRUE END)",
        Shows("boolean true"),
    ),
    (49, "h0", "debug(hash(10, 5432))", Shows("int -5817877081768721676")),
    (50, "h1", "debug(:h0 = hash_murmur2(10, 5432))", Shows("boolean true")),
    (51, "h3", "debug(hash_fnv1a(10, 5432))", Shows("int -7793829335365542153")),
    (52, "h4", "debug(hash(10))", Shows("int")),
    (53, "h5", "debug(hash(10) = hash(10, :default_seed))", Shows("boolean true")),
    (54, "zy", "0", Unchecked),
    (55, "yz", "debug(case when :zy = 0 then -1 else (1 / :zy) end)", Unchecked),
    (56, "yz", "debug(case when :zy = 0 or (1 / :zy) < 0 then -1 else (1 / :zy) end)", Unchecked),
    (57, "yz", "debug(case when :zy > 0 and (1 / :zy) < 0 then (1 / :zy) else 1 end)", Unchecked),
    (58, "v0", "NULL", Unchecked),
    (59, "v1", "TRUE", Unchecked),
    (60, "v2", "5432", Unchecked),
    (61, "v3", "-54.21E-2", Unchecked),
    (96, "sc", "debug(:scale)", Shows("int 1")),
    (97, "ci", "debug(:client_id)", Shows("int 0")),
    (98, "rs", "debug(:random_seed)", Shows("int 5432")),
    (99, "min", "debug(-9223372036854775808)", Shows("int -9223372036854775808")),
    (100, "max", "debug(-(:min + 1))", Shows("int 9223372036854775807")),
    (101, "t", "debug(permute(0, 2) + permute(1, 2) = 1)", Shows("boolean true")),
    (102, "t", "debug(permute(0, 3) + permute(1, 3) + permute(2, 3) = 3)", Shows("boolean true")),
    (
        103,
        "t",
        "debug(permute(0, 4) + permute(1, 4) + permute(2, 4) + permute(3, 4) = 6)",
        Shows("boolean true"),
    ),
    (
        104,
        "t",
        "debug(permute(0, 5) + permute(1, 5) + permute(2, 5) + permute(3, 5) + permute(4, 5) = 10)",
        Shows("boolean true"),
    ),
    (
        105,
        "t",
        "debug(permute(0, 16) + permute(1, 16) + permute(2, 16) + permute(3, 16) + permute(4, 16) + permute(5, 16) + permute(6, 16) + permute(7, 16) + permute(8, 16) + permute(9, 16) + permute(10, 16) + permute(11, 16) + permute(12, 16) + permute(13, 16) + permute(14, 16) + permute(15, 16) = 120)",
        Shows("boolean true"),
    ),
    (106, "size", "random(2, 1000)", Unchecked),
    (107, "v", "random(0, :size - 1)", Unchecked),
    (108, "p", "permute(:v, :size)", Unchecked),
    (
        109,
        "t",
        "debug(0 <= :p and :p < :size and :p = permute(:v + :size, :size) and :p <> permute(:v + 1, :size))",
        Shows("boolean true"),
    ),
    (110, "t", "debug(permute(:v, 1) = 0)", Shows("boolean true")),
    (
        111,
        "t",
        "debug(permute(0, 2, 5431) = 0 and permute(1, 2, 5431) = 1 and permute(0, 2, 5433) = 1 and permute(1, 2, 5433) = 0)",
        Shows("boolean true"),
    ),
    (112, "size", "debug(:max - 10)", Unchecked),
    (
        113,
        "t",
        "debug(permute(:size-1, :size, 5432) = 520382784483822430 and permute(:size-2, :size, 5432) = 1143715004660802862 and permute(:size-3, :size, 5432) = 447293596416496998 and permute(:size-4, :size, 5432) = 916527772266572956 and permute(:size-5, :size, 5432) = 2763809008686028849 and permute(:size-6, :size, 5432) = 8648551549198294572 and permute(:size-7, :size, 5432) = 4542876852200565125)",
        Shows("boolean true"),
    ),
];

/// Whether `got` matches `want` as the test's regular expression `want\b` does at its start.
fn shows(got: &str, want: &str) -> bool {
    got.strip_prefix(want)
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
}

#[test]
fn pgbenchs_expression_test_gives_pgbenchs_values() {
    // The run's options: --random-seed=5432 -Dfoo=-10.1 -Dbla=false -Di=+3 -Dn=null -Dt=t
    // -Df=of -Dd=1.0; scale 1, client 0.
    let mut names: Vec<String> = Vec::new();
    let mut vals: Vec<Var> = Vec::new();
    for (k, v) in [
        ("foo", "-10.1"),
        ("bla", "false"),
        ("i", "+3"),
        ("n", "null"),
        ("t", "t"),
        ("f", "of"),
        ("d", "1.0"),
        ("scale", "1"),
        ("client_id", "0"),
        ("random_seed", "5432"),
        ("default_seed", "5432"),
    ] {
        names.push(k.into());
        vals.push(Var::Text(v.into()));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(5432);
    let (mut checked, mut failed) = (0, Vec::new());
    for &(n, target, src, want) in SCRIPT {
        let slot = |name: &str| names.iter().position(|x| x == name);
        let e = parse(src, &mut |name| slot(name)).unwrap_or_else(|(p, m)| panic!("command {n}: {p}: {m}"));
        let v = e
            .eval(&mut Env {
                vars: &vals,
                names: &names,
                rng: &mut rng,
                default_seed: 5432,
            })
            .unwrap_or_else(|m| panic!("command {n}: {m}"));
        let text = debug_text(v);
        let ok = match want {
            Shows(w) => shows(&text, w),
            Drawn(lo, hi) => matches!(v, Num::Int(i) if (lo..=hi).contains(&i)),
            Unchecked => true,
        };
        if !matches!(want, Unchecked) {
            checked += 1;
            if !ok {
                failed.push(format!("command {n} ({src}): {text}, want {want:?}"));
            }
        }
        match names.iter().position(|x| x == target) {
            Some(s) => vals[s] = Var::Num(v),
            None => {
                names.push(target.into());
                vals.push(Var::Num(v));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    // pgbench's test expects 69 values; 63 are here (4 of them draws), the other 6 are its
    // `\if` branches' (65, 74, 83, 86, 93, 95).
    assert_eq!(checked, 63);
}
