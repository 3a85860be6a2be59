//! Detection: is a tool installed on this host, which version, is that version in the
//! adapter's supported range — and, when nothing is found, where detection looked.
//!
//! Owns the [`Detector`] and its one cache: a slot per tool holding the last answer and
//! what it rests on. The directories (see [`super::locate`]) are searched again once the
//! answer is older than [`RESCAN_AFTER`]; until then a found binary is `stat`ed on every
//! call and the answer stands while the file it resolves to keeps its identity (device,
//! inode, size, mtime), and an extension's answer while its parent directories keep
//! theirs. A version is probed ([`super::probe`], real timeout, the binary's own folders
//! ([`super::locate::own_dirs`]) first on `PATH`) only for a file not probed before, or
//! when the probe is older than [`MAX_AGE`]. So a replaced or removed binary is seen by the
//! next request, a new install within a second, and a request that finds nothing changed
//! costs a `stat` or none. An answer given at once ([`Detector::listing_at_once`], on a
//! thread that must not block) costs that `stat` only on a local filesystem, and nothing
//! while an `inotify` watch on the binary's path ([`devint_fs::watch`]) holds. Must never
//! read the process environment, write anything, or wait unbounded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::capability::{listing, ToolListing};
use super::descriptor::{Detection, ToolDescriptor};
use super::detected::{compatibility, parse_version, Detected};
use super::locate::{display, own_dirs, FileIdentity, SearchDirs};
use super::probe::{search_path, version_output};
use super::vocabulary::Capability;
use devint_fs::watch::PathsWatch;

/// How long a version command may run before it is killed and read as `unknown`. A Node
/// tool loads its whole bundle to print its version: Gemini CLI 0.61's `--version` takes
/// 2.6–3.6 s on a busy two-core machine, so the limit leaves room for several times that.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a lookup's answer stands before the directories are searched again. Within it
/// a found binary is still `stat`ed on every call (a replaced or removed binary is seen at
/// once); only a new install, or one earlier in the search order, waits for the rescan.
pub const RESCAN_AFTER: Duration = Duration::from_secs(1);

/// How long a cached result counts even when the file found is unchanged: a wrapper script
/// (`exec …/node_modules/.bin/tool`) keeps its identity while the package behind it is
/// upgraded, so a result is re-probed at least this often.
pub const MAX_AGE: Duration = Duration::from_secs(300);

/// Detects tools on one host — a `PATH`, a `HOME` and a root for absolute install
/// directories — and caches what it found (see the module doc). Shared by every request.
#[derive(Debug)]
pub struct Detector {
    path_env: String,
    home: PathBuf,
    root: PathBuf,
    timeout: Duration,
    max_age: Duration,
    rescan_after: Duration,
    slots: Mutex<HashMap<&'static str, Arc<Mutex<Option<Slot>>>>>,
}

/// One tool's cache slot: the last lookup's answer, and what it is keyed by.
#[derive(Debug)]
struct Slot {
    /// What was found, as reported.
    detected: Detected,
    /// What the answer rests on besides the lookup.
    key: Key,
    /// When the directories were last searched.
    searched_at: Instant,
    /// When the version was last probed (or the extension directories listed).
    probed_at: Instant,
    /// `detected` resolved into what `list_tools` reports, made on first use.
    listing: Option<Arc<ToolListing>>,
    /// Whether `key` is checked with at most one `stat` on local filesystems
    /// ([`Detector::listing_at_once`]).
    checked_locally: bool,
    /// A watch on the binary's path and the file it leads to, which stands for the `stat`
    /// while it holds. Made on the way of a [`Detector::listing`] once
    /// [`Detector::listing_at_once`] asked for one (`watch_wanted`), so a detector that is
    /// never asked at once (a one-shot command) holds no `inotify` instance.
    watch: Option<PathsWatch>,
    watch_wanted: bool,
}

impl Slot {
    /// A new answer found at `searched_at`.
    fn new(detected: Detected, key: Key, searched_at: Instant, probed_at: Instant) -> Slot {
        Slot {
            detected,
            checked_locally: key.checked_locally(),
            watch: None,
            watch_wanted: false,
            key,
            searched_at,
            probed_at,
            listing: None,
        }
    }

    /// The same answer, confirmed by a search at `searched_at`.
    fn confirmed(self, searched_at: Instant) -> Slot {
        Slot {
            searched_at,
            ..self
        }
    }
}

/// What a cached answer is keyed by.
#[derive(Debug, PartialEq, Eq)]
enum Key {
    /// A binary: the path found and the identity of the file it resolves to.
    Binary(PathBuf, FileIdentity),
    /// Extension directories: the identities of their parent directories.
    Extensions(Vec<Option<FileIdentity>>),
    /// Nothing was found.
    Nothing,
}

impl Key {
    /// Whether the key can prove "unchanged": directories changed within the last moments
    /// may have changed again without a new mtime, so their listing is not reused.
    fn is_settled(&self) -> bool {
        match self {
            Key::Extensions(parents) => parents.iter().flatten().all(FileIdentity::is_settled),
            Key::Binary(..) | Key::Nothing => true,
        }
    }
}

impl Key {
    /// A watch on the binary's path (see [`Slot::watch`]), kept only when the file it leads
    /// to still has the identity the key holds once the watch is made.
    fn watch(&self) -> Option<PathsWatch> {
        let Key::Binary(path, identity) = self else {
            return None;
        };
        let watch = PathsWatch::start([path.as_path()]).ok()?;
        (FileIdentity::at(path) == Some(*identity)).then_some(watch)
    }

    /// Whether [`Detector::still_holds`] checks this key with no `stat` at all, or one on
    /// local filesystems (the binary's directory and the file it resolves to): never one
    /// that can hang on a network mount. Extension directories are listed: not this.
    fn checked_locally(&self) -> bool {
        let local = |p: &Path| matches!(devint_fs::remote::remote_filesystem(p), Ok(None));
        match self {
            Key::Binary(path, _) => local(path) && path.parent().is_some_and(local),
            Key::Extensions(_) => false,
            Key::Nothing => true,
        }
    }
}

impl Detector {
    /// A detector for `path_env` (a `PATH`-style string) and `home`, with absolute install
    /// directories under `/`, the default [`VERSION_TIMEOUT`], [`MAX_AGE`] and
    /// [`RESCAN_AFTER`].
    pub fn new(path_env: impl Into<String>, home: impl Into<PathBuf>) -> Detector {
        Detector {
            path_env: path_env.into(),
            home: home.into(),
            root: PathBuf::from("/"),
            timeout: VERSION_TIMEOUT,
            max_age: MAX_AGE,
            rescan_after: RESCAN_AFTER,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// The same detector, killing a version command that runs longer than `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Detector {
        self.timeout = timeout;
        self
    }

    /// The same detector, re-probing results older than `max_age` even when unchanged.
    pub fn with_max_age(mut self, max_age: Duration) -> Detector {
        self.max_age = max_age;
        self
    }

    /// The same detector, searching the directories again once a lookup is older than
    /// `rescan_after` (zero: on every call).
    pub fn with_rescan_after(mut self, rescan_after: Duration) -> Detector {
        self.rescan_after = rescan_after;
        self
    }

    /// The same detector, with absolute install directories (`/opt/homebrew/bin`, …)
    /// looked up under `root` instead of `/` (a sandbox for tests).
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Detector {
        self.root = root.into();
        self
    }

    /// The `PATH` it searches first.
    pub fn path_env(&self) -> &str {
        &self.path_env
    }

    /// The `HOME` it resolves `~` against.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Detects `descriptor`'s tool: the cached answer while it still holds (see the module
    /// doc), otherwise a new lookup, probing the version only for a file not probed yet.
    pub fn detect(&self, descriptor: &'static ToolDescriptor) -> Detected {
        self.with_answer(descriptor, |slot| slot.detected.clone())
    }

    /// Detects and resolves one tool: what `list_tools` reports for it. When it is not
    /// found, its `discovery` capability says where detection looked. Made once per answer.
    pub fn listing(&self, descriptor: &'static ToolDescriptor) -> Arc<ToolListing> {
        self.with_answer(descriptor, |slot| {
            if slot.watch_wanted && !slot.watch.as_ref().is_some_and(PathsWatch::holds) {
                slot.watch = slot.key.watch();
                slot.watch_wanted = false;
            }
            let made = slot
                .listing
                .get_or_insert_with(|| Arc::new(resolved(descriptor, &slot.detected)));
            Arc::clone(made)
        })
    }

    /// The tool's listing, when the cached answer stands and showing it takes no search,
    /// no version probe, no wait on another request's search, and at most one `stat` on a
    /// local filesystem — none while a watch on the binary's path holds (asked for here,
    /// made by the next [`Detector::listing`]); `None` otherwise (then
    /// [`Detector::listing`] finds it). For an answer given on an async worker, which must
    /// not block.
    pub fn listing_at_once(&self, descriptor: &'static ToolDescriptor) -> Option<Arc<ToolListing>> {
        let slot = self.slot(descriptor.id);
        // A search holds the slot across the version probe: never wait for it.
        let mut slot = slot.try_lock().ok()?;
        let cached = slot.as_mut()?;
        if !self.in_time(cached, Instant::now()) {
            return None;
        }
        // A watch that saw a change leaves it to the full listing; without one, the `stat`.
        let unchanged = match cached.watch.as_ref().map(PathsWatch::holds) {
            Some(holds) => holds,
            None => cached.checked_locally && self.still_holds(descriptor, &cached.key),
        };
        if !unchanged || cached.watch.is_none() {
            cached.watch_wanted = true;
        }
        if unchanged {
            cached.listing.clone()
        } else {
            None
        }
    }

    /// Every registered tool, detected and resolved.
    pub fn list_tools(&self) -> Vec<Arc<ToolListing>> {
        super::all().iter().map(|t| self.listing(t)).collect()
    }

    /// Runs `f` on the tool's current answer, searching first when the cached one no
    /// longer holds.
    fn with_answer<R>(
        &self,
        descriptor: &'static ToolDescriptor,
        f: impl FnOnce(&mut Slot) -> R,
    ) -> R {
        let slot = self.slot(descriptor.id);
        let mut slot = lock(&slot);
        let now = Instant::now();
        let holds = slot.as_ref().is_some_and(|cached| {
            self.in_time(cached, now) && self.still_holds(descriptor, &cached.key)
        });
        if !holds {
            let previous = slot.take();
            *slot = Some(self.search(descriptor, previous, now));
        }
        match slot.as_mut() {
            Some(answer) => f(answer),
            None => unreachable!("the slot was just filled"),
        }
    }

    /// Whether a cached answer is young enough to stand at `now`: searched within the rescan
    /// period and probed within the maximum age.
    fn in_time(&self, cached: &Slot, now: Instant) -> bool {
        now.duration_since(cached.searched_at) < self.rescan_after
            && now.duration_since(cached.probed_at) < self.max_age
    }

    /// Whether `previous`, found by an earlier search, is the answer for `key` still: the
    /// same key, provably unchanged, probed within the maximum age.
    fn reusable(&self, previous: &Slot, key: &Key, now: Instant) -> bool {
        previous.key == *key
            && key.is_settled()
            && now.duration_since(previous.probed_at) < self.max_age
    }

    /// Whether a cached answer's key is unchanged: the binary found still resolves to the
    /// same file, the extension parents are unchanged. One `stat` per key element.
    fn still_holds(&self, descriptor: &ToolDescriptor, key: &Key) -> bool {
        match key {
            Key::Binary(path, identity) => FileIdentity::at(path) == Some(*identity),
            Key::Extensions(parents) => {
                key.is_settled() && *parents == self.extension_parents(descriptor)
            }
            Key::Nothing => true,
        }
    }

    /// A new lookup; the version is probed again only when the file found differs from
    /// the one `previous` probed, or that probe is older than the maximum age.
    fn search(
        &self,
        descriptor: &'static ToolDescriptor,
        previous: Option<Slot>,
        now: Instant,
    ) -> Slot {
        let detection = &descriptor.detection;
        let dirs = self.search_dirs(detection);
        if let Some(found) = dirs.find(detection.binaries) {
            let key = Key::Binary(found.path.clone(), found.identity);
            if let Some(p) = previous.filter(|p| self.reusable(p, &key, now)) {
                return p.confirmed(now);
            }
            let path_env = search_path(&own_dirs(&found.path), &self.path_env);
            let version = version_output(
                &found.path,
                detection.version_args,
                &path_env,
                &self.home,
                self.timeout,
            )
            .and_then(|out| parse_version(&out));
            return Slot::new(
                finish(detection, version, found.path),
                key,
                now,
                Instant::now(),
            );
        }
        // Without extensions, nothing found rests on the lookup alone; with them, it also
        // rests on their parent directories (an install there is seen at once).
        let mut key = Key::Nothing;
        if !detection.extensions.is_empty() {
            key = Key::Extensions(self.extension_parents(descriptor));
            if let Some(p) = previous.filter(|p| self.reusable(p, &key, now)) {
                return p.confirmed(now);
            }
            if let Some((dir, version)) = find_extension(detection, &self.home) {
                return Slot::new(finish(detection, version, dir), key, now, now);
            }
        }
        let configured = detection
            .config_dir
            .map(|dir| self.home.join(dir))
            .filter(|dir| dir.is_dir());
        let absence = self.where_looked(descriptor, &dirs, configured.as_deref());
        let detected = Detected {
            configured,
            absence: Some(absence.into()),
            ..Detected::absent()
        };
        Slot::new(detected, key, now, now)
    }

    /// The sentence of a tool not found: "configured but binary not found" when its
    /// configuration directory exists, and where detection looked (`PATH`'s directories,
    /// then the install directories, then extension directories).
    fn where_looked(
        &self,
        descriptor: &ToolDescriptor,
        dirs: &SearchDirs,
        configured: Option<&Path>,
    ) -> String {
        let detection = &descriptor.detection;
        let name = descriptor.display_name;
        let mut places: Vec<String> = Vec::new();
        if !detection.binaries.is_empty() {
            let path: Vec<String> = dirs.path.iter().map(|d| d.display().to_string()).collect();
            places.push(if path.is_empty() {
                "on an empty PATH".to_owned()
            } else {
                format!("on PATH ({})", path.join(":"))
            });
            let installed: Vec<String> = dirs
                .installed
                .iter()
                .map(|d| display(d, &self.home))
                .collect();
            if !installed.is_empty() {
                places.push(format!("in {}", installed.join(", ")));
            }
        }
        for ext in detection.extensions {
            places.push(format!(
                "in {} for {}<version>",
                display(&self.home.join(ext.parent), &self.home),
                ext.prefix
            ));
        }
        let what = if detection.binaries.is_empty() {
            format!("{name} was not found")
        } else {
            let binaries = detection.binaries.join(" or ");
            match configured {
                Some(dir) => format!(
                    "{name} is configured ({} exists) but its binary {binaries} was not found",
                    display(dir, &self.home)
                ),
                None => format!("{name} ({binaries}) was not found"),
            }
        };
        format!("{what}; looked {}", places.join(" and "))
    }

    fn search_dirs(&self, detection: &Detection) -> SearchDirs {
        SearchDirs::new(detection, &self.path_env, &self.home, &self.root)
    }

    fn extension_parents(&self, descriptor: &ToolDescriptor) -> Vec<Option<FileIdentity>> {
        descriptor
            .detection
            .extensions
            .iter()
            .map(|ext| FileIdentity::at(&self.home.join(ext.parent)))
            .collect()
    }

    /// The one cache slot of a tool; the slot's lock is held while it is searched and
    /// probed, so concurrent requests for one tool wait for one probe instead of starting
    /// several.
    fn slot(&self, tool: &'static str) -> Arc<Mutex<Option<Slot>>> {
        let mut slots = lock(&self.slots);
        Arc::clone(slots.entry(tool).or_default())
    }
}

/// `detected` resolved for `descriptor`; when it found nothing, the `discovery` capability
/// says where detection looked.
fn resolved(descriptor: &'static ToolDescriptor, detected: &Detected) -> ToolListing {
    let mut listing = listing(descriptor, detected.clone());
    if let Some(absence) = &detected.absence {
        if let Some(row) = listing
            .capabilities
            .iter_mut()
            .find(|r| r.capability == Capability::Discovery)
        {
            row.reason = absence.to_string();
        }
    }
    listing
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A slot holds plain data that is valid whatever a panicking holder did.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn finish(detection: &Detection, version: Option<semver::Version>, location: PathBuf) -> Detected {
    let compatibility = compatibility(detection.supported, version.as_ref());
    Detected {
        present: true,
        version,
        compatibility,
        location: Some(location),
        configured: None,
        absence: None,
    }
}

/// The installed extension directory with the highest version, if any.
fn find_extension(
    detection: &Detection,
    home: &Path,
) -> Option<(PathBuf, Option<semver::Version>)> {
    let mut best: Option<(PathBuf, Option<semver::Version>)> = None;
    for ext in detection.extensions {
        let Ok(entries) = std::fs::read_dir(home.join(ext.parent)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(ext.prefix)) else {
                continue;
            };
            if !entry.path().is_dir() {
                continue;
            }
            let version = parse_version(rest);
            let better = match &best {
                None => true,
                Some((_, old)) => version > *old,
            };
            if better {
                best = Some((entry.path(), version));
            }
        }
    }
    best
}
