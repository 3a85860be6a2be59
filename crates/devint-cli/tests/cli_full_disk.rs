//! `devint enrol` on a full disk: at every fill level of a small tmpfs holding the state
//! directory and the socket's directory, either the enrolment is committed and the command
//! says so (naming what failed after the commit), or nothing of it remains.
//!
//! The tmpfs is mounted in a private mount namespace (`unshare --mount`, entered with
//! `nsenter`), so it needs the right to mount (root, as in CI); without it the test prints
//! why it was skipped and passes.

mod cli_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use cli_support::{Sandbox, DEVINT};

/// The file system's size: small enough that a few pages decide every write.
const DISK: &str = "256k";
/// Free space levels tried, in pages of 4 KiB: from none to more than an enrolment needs.
const LEVELS: std::ops::RangeInclusive<u64> = 0..=10;

/// A process holding a private mount namespace; commands run inside it with `nsenter`.
struct Namespace {
    holder: Child,
}

impl Namespace {
    /// A new private mount namespace, or why none can be had here.
    fn new() -> Result<Namespace, String> {
        let mut holder = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sleep", "600"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("unshare could not be run: {e}"))?;
        let ours = std::fs::read_link("/proc/self/ns/mnt").map_err(|e| e.to_string())?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = holder.try_wait() {
                let mut why = String::new();
                if let Some(mut err) = holder.stderr.take() {
                    use std::io::Read;
                    let _ = err.read_to_string(&mut why);
                }
                return Err(format!("unshare --mount failed ({status}): {}", why.trim()));
            }
            let theirs = std::fs::read_link(format!("/proc/{}/ns/mnt", holder.id()));
            if theirs.is_ok_and(|t| t != ours) {
                break;
            }
            if Instant::now() > deadline {
                let _ = holder.kill();
                let _ = holder.wait();
                return Err("unshare did not enter a new mount namespace".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let ns = Namespace { holder };
        // Entering it and mounting a tmpfs in it must both work.
        let probe_dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let at = probe_dir.path().display().to_string();
        let probe = ns.run(
            Path::new("sh"),
            &[
                "-c",
                &format!("mount -t tmpfs -o size={DISK} tmpfs '{at}' && umount '{at}'"),
            ],
            &[],
        );
        if !probe.status.success() {
            return Err(format!(
                "a tmpfs cannot be mounted in it: {}",
                String::from_utf8_lossy(&probe.stderr).trim()
            ));
        }
        Ok(ns)
    }

    /// Run `program ARGS` inside the namespace with exactly `env`.
    fn run(&self, program: &Path, args: &[&str], env: &[(&str, PathBuf)]) -> Output {
        let mut c = Command::new("nsenter");
        c.env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .arg(format!("--target={}", self.holder.id()))
            .args(["--mount", "--"])
            .arg(program)
            .args(args)
            .stdin(Stdio::null());
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("nsenter")
    }

    /// `path` as the namespace sees it, from outside.
    fn inside(&self, path: &Path) -> PathBuf {
        Path::new(&format!("/proc/{}/root", self.holder.id())).join(path.strip_prefix("/").unwrap())
    }

    /// Run a shell command inside the namespace; panics when it fails.
    fn sh(&self, script: &str) {
        let out = self.run(Path::new("sh"), &["-c", script], &[]);
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// One small file system in the namespace, holding the socket's and the state directory.
struct Disk<'a> {
    ns: &'a Namespace,
    s: Sandbox,
    mount: PathBuf,
}

impl<'a> Disk<'a> {
    fn new(ns: &'a Namespace) -> Disk<'a> {
        let s = Sandbox::new();
        let mount = s.root().join("disk");
        std::fs::create_dir(&mount).unwrap();
        ns.sh(&format!(
            "mount -t tmpfs -o size={DISK},mode=0700 tmpfs '{m}' && mkdir -m 700 '{m}/run' '{m}/state'",
            m = mount.display()
        ));
        Disk { ns, s, mount }
    }

    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.s.home()),
            ("AA_DEVINT_SOCKET", self.mount.join("run/devint.sock")),
            ("AA_DEVINT_STATE_DIR", self.mount.join("state")),
            ("NO_COLOR", PathBuf::from("1")),
        ]
    }

    /// `devint ARGS` inside the namespace: (exit code, stdout, stderr).
    fn devint(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.ns.run(Path::new(DEVINT), args, &self.env());
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Fill the file system until `pages` pages of 4 KiB are free.
    fn fill_to(&self, pages: u64) {
        let stat = rustix::fs::statvfs(self.ns.inside(&self.mount)).expect("statvfs");
        let free = stat.f_bavail * stat.f_frsize;
        let want = pages * 4096;
        assert!(free >= want, "only {free} bytes free, {want} wanted");
        let filler = self.ns.inside(&self.mount.join("filler"));
        std::fs::write(filler, vec![0u8; (free - want) as usize]).expect("filler");
    }

    /// Make room again.
    fn empty(&self) {
        std::fs::remove_file(self.ns.inside(&self.mount.join("filler"))).expect("filler");
    }

    /// The token ids of client `c` in the book.
    fn tokens_of_c(&self) -> Vec<String> {
        let (code, out, err) = self.devint(&["--output", "json", "tokens", "list"]);
        assert_eq!(code, 0, "{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        doc["result"]["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["client_name"] == "c")
            .map(|t| t["token_id"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The token id `c.token` holds, if the book knows it (`devint whoami --client c`).
    fn working_token_of_c(&self) -> Option<String> {
        let (code, out, _) = self.devint(&["--output", "json", "whoami", "--client", "c"]);
        let doc: serde_json::Value = serde_json::from_str(&out).ok()?;
        (code == 0).then(|| doc["result"]["token_id"].as_str().unwrap().to_owned())
    }

    /// Temporary files a write left in the socket's or the state directory.
    fn leftovers(&self) -> Vec<String> {
        let mut out = Vec::new();
        for dir in ["run", "state/devint"] {
            let Ok(entries) = std::fs::read_dir(self.ns.inside(&self.mount.join(dir))) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".tmp") {
                    out.push(format!("{dir}/{name}"));
                }
            }
        }
        out
    }
}

impl Drop for Disk<'_> {
    fn drop(&mut self) {
        let _ = self.ns.run(
            Path::new("umount"),
            &[&self.mount.display().to_string()],
            &[],
        );
    }
}

const ENROL: &[&str] = &["enrol", "--client", "c", "--all-tools", "--yes"];

/// How one enrolment ended.
#[derive(Debug, PartialEq, Eq)]
enum Ended {
    Enrolled,
    NothingChanged,
    CommittedWithAFailureAfter,
}

#[test]
fn enrol_on_a_full_disk_is_committed_and_says_so_or_leaves_nothing() {
    let ns = match Namespace::new() {
        Ok(ns) => ns,
        Err(why) => {
            println!("skipped: a private mount namespace is needed to mount a small tmpfs: {why}");
            return;
        }
    };
    let mut first = Vec::new();
    let mut again = Vec::new();
    for pages in LEVELS {
        first.push(first_enrolment(&ns, pages));
        again.push(replacing_enrolment(&ns, pages));
    }
    for ends in [&first, &again] {
        assert!(ends.contains(&Ended::Enrolled), "{ends:?}");
        assert!(ends.contains(&Ended::NothingChanged), "{ends:?}");
    }
    println!("first enrolment by free pages: {first:?}\nreplacement: {again:?}");
}

/// A client's first enrolment with `pages` pages free.
fn first_enrolment(ns: &Namespace, pages: u64) -> Ended {
    let disk = Disk::new(ns);
    disk.fill_to(pages);
    let (code, out, err) = disk.devint(ENROL);
    let at = format!("{pages} pages free: exit {code}\n{out}{err}");
    assert_eq!(disk.leftovers(), Vec::<String>::new(), "{at}");
    if code == 0 {
        assert!(out.contains("Enrolled client c"), "{at}");
        let ids = disk.tokens_of_c();
        assert_eq!(ids.len(), 1, "{at}");
        assert_eq!(disk.working_token_of_c().as_ref(), ids.first(), "{at}");
        return Ended::Enrolled;
    }
    // A failure: nothing of the enrolment remains, and the message says so.
    assert!(disk.tokens_of_c().is_empty(), "a record remains: {at}");
    assert!(
        !disk.ns.inside(&disk.mount.join("run/c.token")).exists(),
        "a token file remains: {at}"
    );
    assert_eq!(code, 1, "{at}");
    assert!(err.contains("nothing was enrolled"), "{at}");
    Ended::NothingChanged
}

/// Enrolling client `c` again (replacing its token) with `pages` pages free.
fn replacing_enrolment(ns: &Namespace, pages: u64) -> Ended {
    let disk = Disk::new(ns);
    let (code, _, err) = disk.devint(ENROL);
    assert_eq!(code, 0, "{err}");
    let old = disk.working_token_of_c().expect("the first token works");
    disk.fill_to(pages);
    let (code, out, err) = disk.devint(ENROL);
    let at = format!("{pages} pages free: exit {code}\n{out}{err}");
    assert_eq!(disk.leftovers(), Vec::<String>::new(), "{at}");
    let working = disk.working_token_of_c();
    let ids = disk.tokens_of_c();
    if code == 0 {
        let new = working.expect("the new token works");
        assert_ne!(new, old, "{at}");
        assert_eq!(ids, [new], "the old token is revoked: {at}");
        return Ended::Enrolled;
    }
    if working.as_ref() == Some(&old) {
        // Nothing changed, and the message says so.
        assert_eq!(ids, [old], "{at}");
        assert_eq!(code, 1, "{at}");
        assert!(err.contains("nothing was enrolled"), "{at}");
        return Ended::NothingChanged;
    }
    assert_eq!(code, 1, "{at}");
    if err.contains("nothing was enrolled") {
        assert_eq!(
            working.as_ref(),
            Some(&old),
            "the old token still works: {at}"
        );
        assert_eq!(ids, [old], "{at}");
        return Ended::NothingChanged;
    }
    // Committed: the new token works and the message names the one still valid.
    let new = working.expect("the new token works");
    assert!(
        err.contains(&format!("client c was enrolled as token {new}")),
        "{at}"
    );
    assert!(
        err.contains(&format!("`devint tokens revoke {old}`")),
        "{at}"
    );
    assert!(ids.contains(&old) && ids.contains(&new), "{at}");
    // Following the fix: room, then the revocation it names.
    disk.empty();
    let (code, _, err) = disk.devint(&["tokens", "revoke", &old, "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(disk.tokens_of_c(), [new], "{at}");
    Ended::CommittedWithAFailureAfter
}
