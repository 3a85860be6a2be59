//! The enrolment book on disk: round trip, refusals with clear errors, concurrent writers,
//! and the server's shared copy noticing changes made by another process.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use devint::auth::{AuthDenial, ClientName, EnrolmentBook, Grant, ResolveError, Scope, ToolScope};
use devint::time::UnixSecs;
use devint::verbs::Verb;
use devint::wire::pb::DenyCode;
use devint_net::book::{BookFile, BookFileError, SharedBook};

const NOW: u64 = 1_800_000_000;
const HOUR: Duration = Duration::from_secs(3600);
const WORKER_ENV: &str = "DEVINT_TEST_BOOK_WORKER";
const WORKER_ISSUES: usize = 20;

struct Sandbox {
    _dir: tempfile::TempDir,
    book_path: PathBuf,
}

fn sandbox() -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    fs::create_dir(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
    Sandbox {
        book_path: state.join("enrolment.json"),
        _dir: dir,
    }
}

impl Sandbox {
    /// The sandbox's book file, as a CLI process or a server would open it.
    fn file(&self) -> BookFile {
        BookFile::new(&self.book_path)
    }

    /// A server's shared copy of the sandbox's book.
    fn server(&self) -> SharedBook {
        SharedBook::open(self.file()).unwrap()
    }
}

/// What `server` answers to `token` asking for `status` on codex, now.
fn status(server: &SharedBook, token: &str) -> Result<Grant, ResolveError> {
    server.resolve(token, Verb::Status, "codex", UnixSecs::new(NOW))
}

fn client(name: &str) -> ClientName {
    ClientName::parse(name).unwrap()
}

fn enrol(file: &BookFile, name: &str) -> String {
    file.update(|book| {
        book.issue(
            client(name),
            Scope::full_lifecycle(ToolScope::All),
            HOUR,
            UnixSecs::new(NOW),
        )
    })
    .map(|(_, secret)| secret.expose_secret_hex().to_string())
    .unwrap()
}

/// A sandbox with one client enrolled, and a server that has let it in once.
struct Enrolled {
    sb: Sandbox,
    cli: BookFile,
    token: String,
    server: SharedBook,
}

fn enrolled() -> Enrolled {
    let sb = sandbox();
    let cli = sb.file();
    let token = enrol(&cli, "ide");
    let server = sb.server();
    assert!(status(&server, &token).is_ok());
    Enrolled {
        sb,
        cli,
        token,
        server,
    }
}

impl Enrolled {
    /// Revoke every record as `devint tokens revoke` does; the very next request is denied.
    fn revoke_and_expect_denial(&self) {
        revoke_all(&self.cli);
        assert!(unknown(status(&self.server, &self.token)));
    }
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_saved_book_loads_back_identical_and_private() {
    let sb = sandbox();
    let file = sb.file();
    let mut book = EnrolmentBook::new();
    book.issue(
        client("a"),
        Scope::read_only(ToolScope::only(["codex", "windsurf-cascade"])),
        HOUR,
        UnixSecs::new(NOW),
    )
    .unwrap();
    book.issue(
        client("b"),
        Scope::full_lifecycle(ToolScope::All),
        HOUR,
        UnixSecs::new(NOW),
    )
    .unwrap();
    file.save(&book).unwrap();
    assert_eq!(file.load().unwrap(), book);
    assert_eq!(mode(&sb.book_path), 0o600);
    let text = fs::read_to_string(&sb.book_path).unwrap();
    assert!(text.contains("\"format_version\": 1"));
}

#[test]
fn saving_creates_a_missing_directory_with_mode_0700() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new-state").join("book.json");
    BookFile::new(&path).save(&EnrolmentBook::new()).unwrap();
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(mode(&path), 0o600);
}

#[test]
fn a_missing_book_is_an_empty_book() {
    let sb = sandbox();
    let book = sb.file().load().unwrap();
    assert!(book.is_empty());
}

#[test]
fn a_corrupt_book_is_an_error_naming_the_file_and_the_fix() {
    let sb = sandbox();
    let file = sb.file();
    enrol(&file, "a");
    fs::write(&sb.book_path, b"{ this is not json").unwrap();
    let err = file.load().unwrap_err();
    assert!(matches!(err, BookFileError::Corrupt { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains(&sb.book_path.display().to_string()), "{msg}");
    assert!(msg.contains("restore it from a backup"), "{msg}");
}

#[test]
fn a_truncated_book_is_refused_not_read_as_empty() {
    let sb = sandbox();
    let file = sb.file();
    enrol(&file, "a");
    enrol(&file, "b");
    let bytes = fs::read(&sb.book_path).unwrap();
    for cut in [0, 1, bytes.len() / 2, bytes.len() - 3] {
        fs::write(&sb.book_path, &bytes[..cut]).unwrap();
        let err = file.load().unwrap_err();
        assert!(
            matches!(err, BookFileError::Corrupt { .. }),
            "cut {cut}: {err}"
        );
    }
}

#[test]
fn an_unknown_format_version_is_refused() {
    let sb = sandbox();
    let file = sb.file();
    fs::write(&sb.book_path, br#"{"format_version": 2, "records": []}"#).unwrap();
    fs::set_permissions(&sb.book_path, fs::Permissions::from_mode(0o600)).unwrap();
    let err = file.load().unwrap_err();
    assert!(
        matches!(err, BookFileError::UnsupportedVersion { found: 2, .. }),
        "{err}"
    );
}

#[test]
fn an_edited_record_with_a_bad_digest_or_verb_is_corrupt() {
    let sb = sandbox();
    let file = sb.file();
    enrol(&file, "a");
    let text = fs::read_to_string(&sb.book_path).unwrap();
    let bad_verb = text.replacen("\"plan\"", "\"check\"", 1);
    fs::write(&sb.book_path, bad_verb).unwrap();
    assert!(matches!(file.load(), Err(BookFileError::Corrupt { .. })));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let digest = v["records"][0]["digest_sha256"].as_str().unwrap();
    fs::write(&sb.book_path, text.replace(digest, &digest.to_uppercase())).unwrap();
    assert!(matches!(file.load(), Err(BookFileError::Corrupt { .. })));
}

#[test]
fn a_book_readable_by_group_or_others_is_refused() {
    let sb = sandbox();
    let file = sb.file();
    enrol(&file, "a");
    for m in [0o640, 0o604, 0o660, 0o602] {
        fs::set_permissions(&sb.book_path, fs::Permissions::from_mode(m)).unwrap();
        let err = file.load().unwrap_err();
        assert!(
            matches!(err, BookFileError::FileTooOpen { mode, .. } if mode == m),
            "{err}"
        );
        assert!(err.to_string().contains("chmod 600"), "{err}");
    }
}

#[test]
fn a_book_in_an_open_directory_is_refused_even_when_missing() {
    let sb = sandbox();
    let file = sb.file();
    enrol(&file, "a");
    let dir = sb.book_path.parent().unwrap();
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    let err = file.load().unwrap_err();
    assert!(
        matches!(err, BookFileError::DirTooOpen { mode: 0o755, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("chmod 700"));
    fs::remove_file(&sb.book_path).unwrap();
    assert!(matches!(file.load(), Err(BookFileError::DirTooOpen { .. })));
    assert!(matches!(
        file.save(&EnrolmentBook::new()),
        Err(BookFileError::DirTooOpen { .. })
    ));
}

#[test]
fn a_book_owned_by_someone_else_is_refused() {
    if !rustix::process::geteuid().is_root() {
        return; // only root can hand a file to another uid
    }
    let sb = sandbox();
    let file = sb.file();
    enrol(&file, "a");
    std::os::unix::fs::chown(&sb.book_path, Some(4242), None).unwrap();
    let err = file.load().unwrap_err();
    assert!(
        matches!(err, BookFileError::NotOwned { owner: 4242, .. }),
        "{err}"
    );
}

#[test]
fn a_symlinked_book_is_refused() {
    let sb = sandbox();
    let real = sb.book_path.with_file_name("real.json");
    BookFile::new(&real).save(&EnrolmentBook::new()).unwrap();
    std::os::unix::fs::symlink(&real, &sb.book_path).unwrap();
    let err = sb.file().load().unwrap_err();
    assert!(matches!(err, BookFileError::WrongKind { .. }), "{err}");
}

#[test]
fn a_failed_change_writes_nothing() {
    let sb = sandbox();
    let file = sb.file();
    enrol(&file, "a");
    let before = fs::read(&sb.book_path).unwrap();
    let stranger = devint::auth::TokenId::generate().unwrap();
    assert!(file.update(|b| b.revoke(&stranger)).is_err());
    assert_eq!(fs::read(&sb.book_path).unwrap(), before);
}

#[test]
fn saving_leaves_no_temporary_files_behind() {
    let sb = sandbox();
    let file = sb.file();
    for i in 0..5 {
        enrol(&file, &format!("c{i}"));
    }
    let names: Vec<_> = fs::read_dir(sb.book_path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["enrolment.json", "enrolment.json.lock"]);
}

#[test]
fn concurrent_writer_threads_lose_no_update() {
    let sb = sandbox();
    let path = sb.book_path.clone();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let file = BookFile::new(path);
                for i in 0..10 {
                    enrol(&file, &format!("t{t}-{i}"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(BookFile::new(&path).load().unwrap().len(), 40);
}

/// Not a test on its own: the body run by the child processes of
/// `concurrent_writer_processes_lose_no_update`.
#[test]
fn book_writer_worker_process() {
    let Some(path) = std::env::var_os(WORKER_ENV) else {
        return;
    };
    let file = BookFile::new(PathBuf::from(path));
    for i in 0..WORKER_ISSUES {
        enrol(&file, &format!("p{}-{i}", std::process::id()));
    }
}

#[test]
fn concurrent_writer_processes_lose_no_update() {
    let sb = sandbox();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--exact", "book_writer_worker_process", "--test-threads=1"])
                .env(WORKER_ENV, &sb.book_path)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let book = sb.file().load().unwrap();
    assert_eq!(book.len(), 2 * WORKER_ISSUES);
}

#[test]
fn a_revocation_by_another_process_is_seen_at_the_next_resolve() {
    let e = enrolled();
    let id = e
        .cli
        .load()
        .unwrap()
        .list()
        .next()
        .unwrap()
        .token_id()
        .clone();
    e.cli.update(|b| b.revoke(&id)).unwrap();
    let err = status(&e.server, &e.token).unwrap_err();
    assert!(
        matches!(err, ResolveError::Denied(AuthDenial::Unknown)),
        "{err}"
    );
}

#[test]
fn an_enrolment_by_another_process_is_seen_at_the_next_resolve() {
    let sb = sandbox();
    let server = sb.server();
    let cli = sb.file();
    let token = enrol(&cli, "ide");
    assert!(status(&server, &token).is_ok());
    let second = enrol(&cli, "other");
    assert!(status(&server, &second).is_ok());
    assert!(status(&server, &token).is_ok());
}

#[test]
fn a_book_corrupted_under_a_running_server_denies_everything_and_says_why() {
    let e = enrolled();
    fs::write(&e.sb.book_path, b"{\"format_version\": 1, \"records\": [").unwrap();
    for _ in 0..2 {
        let err = status(&e.server, &e.token).unwrap_err();
        assert!(matches!(err, ResolveError::BookUnavailable(_)), "{err}");
        assert_eq!(err.wire_code(), DenyCode::Unauthenticated);
        assert!(err.to_string().contains("corrupt"), "{err}");
    }
    // The old copy is not used as a fallback; fixing the file restores service.
    let text = serde_json::json!({"format_version": 1, "records": []}).to_string();
    fs::write(&e.sb.book_path, text).unwrap();
    let err = status(&e.server, &e.token).unwrap_err();
    assert!(
        matches!(err, ResolveError::Denied(AuthDenial::Unknown)),
        "{err}"
    );
}

#[test]
fn a_book_made_world_readable_under_a_running_server_denies_everything() {
    let sb = sandbox();
    let cli = sb.file();
    let token = enrol(&cli, "ide");
    let server = sb.server();
    fs::set_permissions(&sb.book_path, fs::Permissions::from_mode(0o644)).unwrap();
    let err = status(&server, &token).unwrap_err();
    assert!(matches!(err, ResolveError::BookUnavailable(_)), "{err}");
}

#[test]
fn a_server_refuses_to_start_on_a_corrupt_book() {
    let sb = sandbox();
    fs::write(&sb.book_path, b"garbage").unwrap();
    fs::set_permissions(&sb.book_path, fs::Permissions::from_mode(0o600)).unwrap();
    assert!(matches!(
        SharedBook::open(sb.file()),
        Err(BookFileError::Corrupt { .. })
    ));
}

/// Revoke `token`'s record the way `devint tokens revoke` does (atomic replacement).
fn revoke_all(cli: &BookFile) {
    let ids: Vec<_> = cli
        .load()
        .unwrap()
        .list()
        .map(|r| r.token_id().clone())
        .collect();
    cli.update(|b| {
        for id in &ids {
            b.revoke(id)?;
        }
        Ok(())
    })
    .unwrap();
}

fn unknown(result: Result<Grant, ResolveError>) -> bool {
    matches!(result, Err(ResolveError::Denied(AuthDenial::Unknown)))
}

#[test]
fn a_revocation_right_after_enrolment_is_seen_whatever_the_clock_granularity() {
    // An atomic replacement within the same timestamp tick as the enrolment must still be
    // seen: the watch queues the rename; without a watch, the held file's link count drops.
    for _ in 0..50 {
        let e = enrolled();
        e.revoke_and_expect_denial();
    }
}

#[test]
fn a_revocation_over_a_hard_linked_book_is_seen_at_the_next_resolve() {
    // A backup hard link keeps the old file alive after the replacement: its link count
    // still changes (2 → 1).
    let e = enrolled();
    fs::hard_link(&e.sb.book_path, e.sb.book_path.with_extension("bak")).unwrap();
    assert!(
        status(&e.server, &e.token).is_ok(),
        "a new link changes nothing enrolled"
    );
    e.revoke_and_expect_denial();
}

#[test]
fn a_book_edited_in_place_is_seen_at_the_next_resolve() {
    let e = enrolled();
    // The same book without its record, written into the same inode (truncate + write).
    let other = e.sb.book_path.with_extension("other");
    BookFile::new(&other).save(&EnrolmentBook::new()).unwrap();
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
    let before = inode(&e.sb.book_path);
    fs::write(&e.sb.book_path, fs::read(&other).unwrap()).unwrap();
    assert_eq!(inode(&e.sb.book_path), before, "edited in place");
    assert!(unknown(status(&e.server, &e.token)));
}

#[test]
fn a_book_renamed_away_and_replaced_is_seen_at_the_next_resolve() {
    let sb = sandbox();
    let cli = sb.file();
    let token = enrol(&cli, "ide");
    let server = sb.server();
    // Time passes between enrolment and the edit, as it does for a person with an editor
    // that renames the original to a backup and writes a new file.
    std::thread::sleep(Duration::from_millis(20));
    assert!(status(&server, &token).is_ok());
    fs::rename(&sb.book_path, sb.book_path.with_extension("json~")).unwrap();
    cli.save(&EnrolmentBook::new()).unwrap();
    assert!(unknown(status(&server, &token)));
}

#[test]
fn a_book_whose_directory_is_renamed_away_and_replaced_is_seen_at_the_next_resolve() {
    // The held file is untouched (still linked, in the old directory): only a watch on the
    // book's directory tells the name now leads elsewhere.
    let e = enrolled();
    let state = e.sb.book_path.parent().unwrap();
    fs::rename(state, state.with_extension("old")).unwrap();
    fs::create_dir(state).unwrap();
    fs::set_permissions(state, fs::Permissions::from_mode(0o700)).unwrap();
    e.cli.save(&EnrolmentBook::new()).unwrap();
    assert!(unknown(status(&e.server, &e.token)));
}

#[test]
fn a_revocation_after_the_change_queue_overflowed_is_seen_at_the_next_resolve() {
    // Fill the kernel's queue of changes with neighbours' (files created beside the book):
    // the revocation's own events are then dropped, and only the overflow says so.
    let limit: usize = fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .expect("the kernel's inotify queue limit (Linux)")
        .trim()
        .parse()
        .unwrap();
    let e = enrolled();
    let state = e.sb.book_path.parent().unwrap();
    let crowd = state.join("crowd");
    for i in 0..=limit {
        fs::File::create(crowd.with_extension(i.to_string())).unwrap();
    }
    e.revoke_and_expect_denial();
}

#[test]
fn changes_beside_the_book_neither_deny_nor_hide_a_revocation() {
    // The audit log and the writers' temporary files live beside the book: their comings
    // and goings deny nothing, and a revocation queued among them (neighbours' events
    // before and after its own, read in one go) is still seen.
    let e = enrolled();
    let state = e.sb.book_path.parent().unwrap();
    let neighbour = |round: usize| {
        let log = state.join("audit.jsonl");
        fs::write(&log, format!("{round}")).unwrap();
        fs::rename(&log, state.join(format!("audit.{round}.jsonl"))).unwrap();
    };
    for round in 0..3 {
        neighbour(round);
        assert!(status(&e.server, &e.token).is_ok(), "round {round}");
    }
    neighbour(3);
    revoke_all(&e.cli);
    neighbour(4);
    assert!(unknown(status(&e.server, &e.token)));
}
