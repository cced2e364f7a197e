//! The limit of open files of a spilled `neardup dedup`: its merge keeps
//! every sorted run of band entries open. Under a low soft limit the
//! command raises it to the hard one and gives the output in memory;
//! under a low hard limit it fails with an error that says what stopped
//! it, and leaves no run behind. (Linux: the limits are set by `sh`'s
//! `ulimit` before the command starts.)

#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod common;

use std::process::{Command, Output};

use common::{example_pages, neardup, temp_dir};

/// `neardup dedup` over the example pages, one band entry a sorted run
/// (7 pages: over 200 runs open at once), under `ulimit` options `limit`.
fn spilled_under(limit: &str, spill: &std::path::Path) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit {limit} 64 && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_neardup"))
        .args(["dedup", "-q", "--spill-run-records", "1", "--spill-dir"])
        .arg(spill)
        .arg(example_pages())
        .output()
        .expect("run sh")
}

#[test]
fn a_low_soft_limit_of_open_files_is_raised_and_a_low_hard_one_is_named() {
    let dir = temp_dir("open-files");
    let spill = dir.join("spill");
    std::fs::create_dir_all(&spill).unwrap();
    let mem = neardup(&["dedup", "-q", example_pages().to_str().unwrap()]);
    assert!(mem.status.success());
    let hard: u64 = String::from_utf8(
        Command::new("sh")
            .args(["-c", "ulimit -Hn"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap_or(u64::MAX);
    if hard >= 1024 {
        let soft = spilled_under("-Sn", &spill);
        let err = String::from_utf8_lossy(&soft.stderr);
        assert!(soft.status.success(), "{err}");
        assert_eq!(soft.stdout, mem.stdout);
    } else {
        eprintln!("skipped the soft limit: the hard limit of open files is {hard}");
    }
    let hard = spilled_under("-n", &spill);
    let err = String::from_utf8_lossy(&hard.stderr);
    assert!(!hard.status.success());
    assert!(
        err.contains("opening sorted run") && err.contains("limit of open files"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0);
}
