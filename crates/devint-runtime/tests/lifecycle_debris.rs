//! Recovery sweeps its own debris. A child process is SIGKILLed in the
//! middle of a durable write of a settings file (half of 1 MiB written to the temporary
//! file); the temporary file it leaves (`.settings.json.devint-<hex>.tmp`, with the
//! original's mode) is removed when the runtime opens, and one left before a mutation is
//! removed before that mutation writes. Files that merely look similar are left alone.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use devint_fs::durable;
use lifecycle_support::*;

const CHILD_TARGET: &str = "DEVINT_DEBRIS_CHILD_TARGET";

/// The child's side: writes half of a 1 MiB settings file through the durable write, says
/// so, and waits to be killed. Does nothing unless spawned by a test below.
#[test]
fn debris_child_entry() {
    let Ok(target) = std::env::var(CHILD_TARGET) else {
        return;
    };
    let target = PathBuf::from(target);
    let big = vec![b' '; 1024 * 1024];
    let _ = durable::write_atomic_with(
        &target,
        &big,
        &devint_fs::mode::Modes::PRIVATE,
        &mut |file, bytes| {
            file.write_all(&bytes[..bytes.len() / 2])?;
            file.sync_all()?;
            std::fs::write(target.with_extension("writing"), "")?;
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        },
    );
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// Spawns the child writing `target`, waits until it is mid-write, and SIGKILLs it.
fn kill_mid_write(target: &Path) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "debris_child_entry",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_TARGET, target)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marker = target.with_extension("writing");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the child never started writing");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    std::fs::remove_file(marker).unwrap();
}

#[test]
fn a_write_killed_midway_leaves_a_temporary_that_start_up_removes() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    Client::new(&book(), "ide").install(&rt, "team");
    let installed = sb.read_settings().unwrap();
    drop(rt);
    let dir = sb.settings().parent().unwrap().to_owned();
    kill_mid_write(&sb.settings());
    let left = temporaries(&dir);
    assert_eq!(left.len(), 1, "the kill left one temporary file: {left:?}");
    assert!(left[0].starts_with(".settings.json.devint-"), "{left:?}");
    // A user's file that merely looks like ours is not ours to remove.
    std::fs::write(dir.join(".settings.json.devint-mine.tmp"), "keep").unwrap();

    let _rt = sb.open();
    assert_eq!(
        temporaries(&dir),
        vec![".settings.json.devint-mine.tmp".to_owned()],
        "start-up removed the debris and only it"
    );
    assert_eq!(
        sb.read_settings().unwrap(),
        installed,
        "the target is untouched"
    );
}

#[test]
fn debris_left_while_the_runtime_runs_is_removed_before_the_next_mutation() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let dir = sb.settings().parent().unwrap().to_owned();
    kill_mid_write(&sb.settings());
    assert_eq!(temporaries(&dir).len(), 1);
    c.install(&rt, "team");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    kill_mid_write(&sb.settings());
    assert_eq!(temporaries(&dir).len(), 1);
    c.uninstall(&rt);
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}
