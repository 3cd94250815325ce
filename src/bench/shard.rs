//! `--shard I/N`: one machine's part of a run whose plan is split over many.
//!
//! A plan that runs for days (presets of several workloads, each a comparison group) can be
//! spread over the machines of a scheduler users already have. The unit of splitting is a whole
//! job of the plan: the configurations shown side by side are interleaved with their own
//! warm-ups on one machine and never pooled across machines. Every shard computes the same plan
//! from the same command line, in the same order, and takes the jobs whose position `j` has
//! `j % N == I` (so the shards partition the plan, and neighbouring jobs go to different
//! machines). `--replicate` makes every shard run the whole plan instead: the same experiment on
//! many machines, for cross-machine variance.
//!
//! `--shard auto` takes I and N from the scheduler's environment: Slurm job arrays
//! (`SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_COUNT`, or `SLURM_ARRAY_TASK_MIN`/`MAX`),
//! Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX` with `--shard-count N`), and AWS Batch array
//! jobs (`AWS_BATCH_JOB_ARRAY_INDEX` with `AWS_BATCH_JOB_ARRAY_SIZE`).

/// Which shard this process is, and who said so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    /// `manual`, `slurm`, `kubernetes` or `aws-batch`.
    pub scheduler: &'static str,
    /// The scheduler's ids for this task (`SLURM_ARRAY_JOB_ID=...`), for the manifest.
    pub job_ids: Vec<(String, String)>,
}

/// A `--shard` value or environment that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    #[error("--shard {0}: give I/N with 0 <= I < N (e.g. 0/4), or auto")]
    Syntax(String),
    #[error("--shard auto: no scheduler told this process its index (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX with --shard-count, AWS_BATCH_JOB_ARRAY_INDEX); give --shard I/N")]
    NoScheduler,
    #[error("--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not the number of shards; give --shard-count N (the Job's completions)")]
    NoCount,
    #[error("--shard auto: {var}={value} is not a usable number")]
    BadEnv { var: &'static str, value: String },
    #[error("--shard {index}/{count}: the plan has only {jobs} comparison group(s), so shards past {last} would run nothing; use at most {jobs} shards, or --replicate to run the whole plan on every shard")]
    TooMany {
        index: usize,
        count: usize,
        jobs: usize,
        last: usize,
    },
}

fn number(var: &'static str, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<usize>, ShardError> {
    match env(var) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| ShardError::BadEnv { var, value: v }),
    }
}

/// Parses `--shard` (`I/N` or `auto`, reading `env`).
pub fn parse(
    value: &str,
    shard_count: Option<usize>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Shard, ShardError> {
    if value != "auto" {
        let (i, n) = value
            .split_once('/')
            .and_then(|(i, n)| Some((i.trim().parse::<usize>().ok()?, n.trim().parse::<usize>().ok()?)))
            .filter(|(i, n)| i < n)
            .ok_or_else(|| ShardError::Syntax(value.to_string()))?;
        return Ok(Shard {
            index: i,
            count: n,
            scheduler: "manual",
            job_ids: Vec::new(),
        });
    }
    let ids = |vars: &[&str]| -> Vec<(String, String)> {
        vars.iter().filter_map(|v| env(v).map(|x| (v.to_string(), x))).collect()
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID", env)? {
        let count = match number("SLURM_ARRAY_TASK_COUNT", env)? {
            Some(c) => c,
            None => {
                let min = number("SLURM_ARRAY_TASK_MIN", env)?.unwrap_or(0);
                let max = number("SLURM_ARRAY_TASK_MAX", env)?.ok_or(ShardError::NoScheduler)?;
                max + 1 - min
            }
        };
        let min = number("SLURM_ARRAY_TASK_MIN", env)?.unwrap_or(0);
        let index = id.checked_sub(min).filter(|i| *i < count).ok_or(ShardError::BadEnv {
            var: "SLURM_ARRAY_TASK_ID",
            value: id.to_string(),
        })?;
        return Ok(Shard {
            index,
            count,
            scheduler: "slurm",
            job_ids: ids(&[
                "SLURM_ARRAY_JOB_ID",
                "SLURM_ARRAY_TASK_ID",
                "SLURM_JOB_ID",
                "SLURM_CLUSTER_NAME",
            ]),
        });
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX", env)? {
        let count = shard_count.ok_or(ShardError::NoCount)?;
        if index >= count {
            return Err(ShardError::BadEnv {
                var: "JOB_COMPLETION_INDEX",
                value: index.to_string(),
            });
        }
        return Ok(Shard {
            index,
            count,
            scheduler: "kubernetes",
            job_ids: ids(&["JOB_COMPLETION_INDEX", "HOSTNAME"]),
        });
    }
    if let Some(index) = number("AWS_BATCH_JOB_ARRAY_INDEX", env)? {
        let count = number("AWS_BATCH_JOB_ARRAY_SIZE", env)?.ok_or(ShardError::NoScheduler)?;
        if index >= count {
            return Err(ShardError::BadEnv {
                var: "AWS_BATCH_JOB_ARRAY_INDEX",
                value: index.to_string(),
            });
        }
        return Ok(Shard {
            index,
            count,
            scheduler: "aws-batch",
            job_ids: ids(&["AWS_BATCH_JOB_ID", "AWS_BATCH_JOB_ARRAY_INDEX"]),
        });
    }
    Err(ShardError::NoScheduler)
}

/// The positions of the plan's `jobs` this shard runs.
pub fn select(jobs: usize, shard: &Shard, replicate: bool) -> Result<Vec<usize>, ShardError> {
    if replicate {
        return Ok((0..jobs).collect());
    }
    if shard.count > jobs {
        return Err(ShardError::TooMany {
            index: shard.index,
            count: shard.count,
            jobs,
            last: jobs.saturating_sub(1),
        });
    }
    Ok((0..jobs).filter(|j| j % shard.count == shard.index).collect())
}

/// The sweep id: `--sweep NAME`, else the scheduler's array id with the plan's hash, else the
/// plan's hash alone (every shard of one command line computes the same).
pub fn sweep_id(name: Option<&str>, shard: &Shard, plan_hash: &str) -> String {
    if let Some(n) = name {
        return n.to_string();
    }
    let array = shard.job_ids.iter().find_map(|(k, v)| match k.as_str() {
        "SLURM_ARRAY_JOB_ID" => Some(format!("slurm-{v}")),
        "AWS_BATCH_JOB_ID" => Some(format!("aws-{}", v.split(':').next().unwrap_or(v))),
        _ => None,
    });
    match array {
        Some(a) => format!("{a}-{plan_hash}"),
        None => format!("plan-{plan_hash}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn shards_partition_the_plan_exactly_for_every_count_up_to_the_jobs() {
        for jobs in 1..=7 {
            for count in 1..=jobs + 2 {
                let mut seen = vec![0; jobs];
                for index in 0..count {
                    let s = Shard {
                        index,
                        count,
                        scheduler: "manual",
                        job_ids: vec![],
                    };
                    match select(jobs, &s, false) {
                        Ok(picked) => picked.iter().for_each(|&j| seen[j] += 1),
                        Err(e) => {
                            assert!(count > jobs, "{e}");
                            assert!(matches!(e, ShardError::TooMany { .. }));
                        }
                    }
                    // With --replicate every shard runs everything.
                    assert_eq!(select(jobs, &s, true).unwrap(), (0..jobs).collect::<Vec<_>>());
                }
                if count <= jobs {
                    assert_eq!(seen, vec![1; jobs], "jobs {jobs}, shards {count}");
                }
            }
        }
    }

    #[test]
    fn manual_shards_parse_and_bad_ones_are_refused() {
        let none = env(&[]);
        let s = parse("2/4", None, &none).unwrap();
        assert_eq!((s.index, s.count, s.scheduler), (2, 4, "manual"));
        for bad in ["4/4", "x/2", "1", "1/0", ""] {
            assert!(matches!(parse(bad, None, &none), Err(ShardError::Syntax(_))), "{bad}");
        }
        assert_eq!(parse("auto", None, &none), Err(ShardError::NoScheduler));
    }

    #[test]
    fn auto_reads_slurm_kubernetes_and_aws_batch() {
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
            ("SLURM_ARRAY_JOB_ID", "99"),
        ]);
        let s = parse("auto", None, &slurm).unwrap();
        assert_eq!((s.index, s.count, s.scheduler), (1, 4, "slurm"));
        assert_eq!(sweep_id(None, &s, "abc"), "slurm-99-abc");
        assert_eq!(sweep_id(Some("mine"), &s, "abc"), "mine");
        let slurm = env(&[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "3")]);
        assert_eq!(parse("auto", None, &slurm).unwrap().index, 2);
        let k8s = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert_eq!(parse("auto", None, &k8s), Err(ShardError::NoCount));
        let s = parse("auto", Some(5), &k8s).unwrap();
        assert_eq!((s.index, s.count, s.scheduler), (3, 5, "kubernetes"));
        assert_eq!(sweep_id(None, &s, "abc"), "plan-abc");
        let aws = env(&[
            ("AWS_BATCH_JOB_ARRAY_INDEX", "1"),
            ("AWS_BATCH_JOB_ARRAY_SIZE", "2"),
            ("AWS_BATCH_JOB_ID", "j1:1"),
        ]);
        let s = parse("auto", None, &aws).unwrap();
        assert_eq!((s.index, s.count, s.scheduler), (1, 2, "aws-batch"));
        assert_eq!(sweep_id(None, &s, "abc"), "aws-j1-abc");
        let bad = env(&[("SLURM_ARRAY_TASK_ID", "x")]);
        assert!(matches!(parse("auto", None, &bad), Err(ShardError::BadEnv { .. })));
    }
}
