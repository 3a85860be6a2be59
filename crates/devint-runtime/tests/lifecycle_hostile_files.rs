//! Every file the runtime reads — settings files, receipts, journals,
//! policy profiles — is opened without blocking and read only when it is a regular file
//! within its size cap. Each reader meets a FIFO, a device, a socket, a directory and an
//! oversize file; each must answer (within two seconds, or the test fails instead of
//! hanging) with a refusal naming what the path is.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use devint::verbs::StatusState;
use devint_fs::read::Limit;
use devint_runtime::reference::ReferenceRuntime;
use lifecycle_support::*;

/// What to plant where a file should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fifo,
    Device,
    Socket,
    Directory,
    Oversize,
}

const KINDS: [Kind; 5] = [
    Kind::Fifo,
    Kind::Device,
    Kind::Socket,
    Kind::Directory,
    Kind::Oversize,
];

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Puts `kind` at `path` (replacing what is there). A device is a symlink to `/dev/zero`
/// where the reader follows links, else a real character device (root only). Returns the
/// words the refusal must contain, and a guard keeping a socket bound; `None` when the kind
/// cannot be made here (printed).
fn plant(
    path: &Path,
    kind: Kind,
    follows: bool,
    limit: Limit,
) -> Option<(&'static str, Option<UnixListener>)> {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_dir_all(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match kind {
        Kind::Fifo => {
            devint_fs::special::mkfifo(path);
            Some(("named pipe", None))
        }
        Kind::Device if follows => {
            std::os::unix::fs::symlink("/dev/zero", path).unwrap();
            Some(("character device", None))
        }
        Kind::Device if is_root() => {
            rustix::fs::mknodat(
                rustix::fs::CWD,
                path,
                rustix::fs::FileType::CharacterDevice,
                rustix::fs::Mode::from_raw_mode(0o600),
                rustix::fs::makedev(1, 5),
            )
            .unwrap();
            Some(("character device", None))
        }
        Kind::Device => {
            println!("skipped: a device at {} needs root to mknod (this reader refuses symlinks, so /dev/zero cannot be linked in)", path.display());
            None
        }
        Kind::Socket => Some(("socket", Some(UnixListener::bind(path).unwrap()))),
        Kind::Directory => {
            std::fs::create_dir(path).unwrap();
            Some(("directory", None))
        }
        Kind::Oversize => {
            let f = std::fs::File::create(path).unwrap();
            f.set_len(limit.bytes + 1).unwrap();
            std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
                .unwrap();
            Some(("larger than", None))
        }
    }
}

/// Runs `f` on another thread; fails if it has not answered within two seconds.
fn within<T: Send + 'static>(what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(2))
        .unwrap_or_else(|_| panic!("{what}: the reader blocked instead of refusing"))
}

fn assert_names(text: &str, words: &str, kind: Kind, reader: &str) {
    assert!(
        text.contains(words),
        "{reader} meeting {kind:?}: the refusal does not say {words:?}: {text}"
    );
}

#[test]
fn the_settings_reader_refuses_every_non_regular_or_oversize_file() {
    for kind in KINDS {
        let sb = Sandbox::new();
        let Some((words, _guard)) = plant(&sb.settings(), kind, true, Limit::SETTINGS) else {
            continue;
        };
        let root: PathBuf = sb.dir.path().to_owned();
        let message = within(format!("settings {kind:?}"), move || {
            let rt = ReferenceRuntime::open(config_for(&root)).unwrap();
            let mut c = Client::new(&book(), "ide");
            c.plan_with(
                &rt,
                plan_args(devint::verbs::Profile::Recommended, Some("team")),
            )
            .unwrap_err()
            .message
        });
        assert_names(&message, words, kind, "settings");
        assert_names(&message, "settings.json", kind, "settings");
    }
}

#[test]
fn the_receipt_reader_refuses_every_non_regular_or_oversize_file() {
    for kind in KINDS {
        let sb = Sandbox::new();
        sb.write_settings(CLAUDE_SETTINGS);
        let rt = sb.open();
        Client::new(&book(), "ide").install(&rt, "team");
        drop(rt);
        let receipt = sb.files("receipts").pop().unwrap();
        let Some((words, _guard)) = plant(&receipt, kind, false, Limit::STATE) else {
            continue;
        };
        let root: PathBuf = sb.dir.path().to_owned();
        let status = within(format!("receipt {kind:?}"), move || {
            let rt = ReferenceRuntime::open(config_for(&root)).unwrap();
            Client::new(&book(), "ide").status(&rt)
        });
        assert_eq!(status.state, StatusState::Degraded, "receipt {kind:?}");
        assert_names(
            status.state_reason.unwrap().as_str(),
            words,
            kind,
            "receipt",
        );
    }
}

#[test]
fn the_journal_reader_refuses_every_non_regular_or_oversize_file() {
    for kind in KINDS {
        let sb = Sandbox::new();
        drop(sb.open());
        let journal = sb.state.join("journal/claude-code.0123456789abcdef.json");
        let Some((words, _guard)) = plant(&journal, kind, false, Limit::STATE) else {
            continue;
        };
        let root: PathBuf = sb.dir.path().to_owned();
        let e = within(format!("journal {kind:?}"), move || {
            ReferenceRuntime::open(config_for(&root))
                .unwrap_err()
                .to_string()
        });
        assert_names(&e, words, kind, "journal");
        assert_names(&e, "claude-code.0123456789abcdef.json", kind, "journal");
    }
}

#[test]
fn the_policy_profile_reader_refuses_every_non_regular_or_oversize_file() {
    for kind in KINDS {
        let sb = Sandbox::new();
        let profile = sb.state.join("profiles/team.toml");
        let Some((words, _guard)) = plant(&profile, kind, true, Limit::PROFILE) else {
            continue;
        };
        let root: PathBuf = sb.dir.path().to_owned();
        let message = within(format!("profile {kind:?}"), move || {
            let rt = ReferenceRuntime::open(config_for(&root)).unwrap();
            let mut c = Client::new(&book(), "ide");
            c.plan_with(
                &rt,
                plan_args(devint::verbs::Profile::Recommended, Some("team")),
            )
            .unwrap_err()
            .message
        });
        assert_names(&message, words, kind, "policy profile");
    }
}

#[test]
fn settings_json_linked_to_dev_zero_is_refused_not_read() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.settings().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", sb.settings()).unwrap();
    let root: PathBuf = sb.dir.path().to_owned();
    let message = within("settings.json → /dev/zero".into(), move || {
        let rt = ReferenceRuntime::open(config_for(&root)).unwrap();
        let mut c = Client::new(&book(), "ide");
        c.plan_with(
            &rt,
            plan_args(devint::verbs::Profile::Recommended, Some("team")),
        )
        .unwrap_err()
        .message
    });
    assert!(message.contains("character device"), "{message}");
}

/// Status of claude-code in the sandbox at `root`, from a runtime opened afresh.
fn fresh_status(root: &Path) -> devint::verbs::StatusView {
    let rt = ReferenceRuntime::open(config_for(root)).unwrap();
    Client::new(&book(), "ide").status(&rt)
}

#[test]
fn the_evidence_reader_refuses_every_non_regular_or_oversize_file() {
    for kind in KINDS {
        let sb = Sandbox::new();
        sb.write_settings(CLAUDE_SETTINGS);
        let rt = sb.open();
        let mut c = Client::new(&book(), "ide");
        c.install(&rt, "team");
        c.verify(&rt);
        drop(rt);
        let evidence = sb.files("evidence").pop().expect("verify records evidence");
        let root: PathBuf = sb.dir.path().to_owned();
        let with_evidence = fresh_status(&root);
        std::fs::remove_file(&evidence).unwrap();
        let without = fresh_status(&root);
        assert_ne!(
            with_evidence.achieved_level, without.achieved_level,
            "the evidence counts when it reads back"
        );
        if plant(&evidence, kind, false, Limit::STATE).is_none() {
            continue;
        }
        // Answered without blocking, and what is there counts as no evidence: it lowers
        // the state, never raises it.
        let planted = within(format!("evidence {kind:?}"), move || fresh_status(&root));
        assert_eq!(
            planted.achieved_level, without.achieved_level,
            "evidence {kind:?}"
        );
        assert_eq!(planted.state, without.state, "evidence {kind:?}");
    }
}

/// `scoped_events` of claude-code from a runtime opened afresh on `root`.
fn fresh_events(root: &Path) -> Vec<devint::verbs::ScopedEvent> {
    let rt = ReferenceRuntime::open(config_for(root)).unwrap();
    let call = devint::verbs::VerbCall::ScopedEvents {
        tool: claude(),
        limit: 0,
        since: devint::time::UnixSecs::EPOCH,
    };
    match Client::new(&book(), "ide").call(&rt, call).unwrap() {
        devint::verbs::VerbResult::ScopedEvents(e) => e.events,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_event_spool_reader_refuses_every_non_regular_or_oversize_file() {
    for kind in KINDS {
        let sb = Sandbox::new();
        drop(sb.open());
        let spool = sb.state.join("events");
        std::fs::write(
            spool.join("a.jsonl"),
            r#"{"occurred_at_unix_secs": 100, "tool_id": "claude-code", "verdict_kind": "deny", "mechanism": "hooks"}"#,
        )
        .unwrap();
        if plant(&spool.join("b.jsonl"), kind, true, Limit::EVENT_SPOOL).is_none() {
            continue;
        }
        let root: PathBuf = sb.dir.path().to_owned();
        // The planted file is skipped, never waited on or read; the good one still counts.
        let events = within(format!("event spool {kind:?}"), move || fresh_events(&root));
        let at: Vec<u64> = events
            .iter()
            .map(|e| e.occurred_at_unix_secs.get())
            .collect();
        assert_eq!(at, [100], "event spool {kind:?}");
    }
}

#[test]
fn the_approval_queue_append_refuses_every_non_regular_file_without_blocking() {
    // (what to plant, whether a reader holds the FIFO open)
    for (kind, with_reader) in [
        (Kind::Fifo, false),
        (Kind::Fifo, true),
        (Kind::Device, true),
        (Kind::Socket, false),
        (Kind::Directory, false),
    ] {
        let sb = Sandbox::new();
        drop(sb.open());
        let queue = sb.state.join("approvals/queue.jsonl");
        // A device is linked in: the append never follows a link, so it is refused as one.
        let words = match plant(&queue, kind, true, Limit::STATE) {
            Some(_) if kind == Kind::Device => "symbolic link",
            Some((words, _)) => words,
            None => continue,
        };
        // A FIFO with a reader opens for writing at once; only the `fstat` refuses it.
        let _reader = with_reader.then(|| {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                .open(&queue)
                .unwrap()
        });
        // The gateway raised the approval, so the relay gets as far as the queue.
        let approval = devint::verbs::ApprovalId::random();
        std::fs::write(
            sb.state.join("approvals/pending.jsonl"),
            format!(
                "{{\"approval_id\": \"{}\", \"tool_id\": \"claude-code\"}}\n",
                approval.as_str()
            ),
        )
        .unwrap();
        let root: PathBuf = sb.dir.path().to_owned();
        let refused = within(format!("approval queue {kind:?}"), move || {
            let rt = ReferenceRuntime::open(config_for(&root)).unwrap();
            let call = devint::verbs::VerbCall::ApprovalRelay {
                tool: claude(),
                approval_id: approval,
                input: devint::verbs::UserInput::Approve,
            };
            Client::new(&book(), "ide").call(&rt, call).unwrap_err()
        });
        assert_names(&refused.message, words, kind, "approval queue");
        assert_names(
            &refused.message,
            "approvals/queue.jsonl",
            kind,
            "approval queue",
        );
    }
}
