//! Completion in the shells people use, driven through each real shell: the script `devint
//! completions SHELL` prints is loaded by bash, zsh and fish, and asking it to complete a
//! command, a tool id or a value runs devint as its own completer and offers the right words.
//!
//! bash runs the registered function as `complete -F` would (COMP_WORDS, COMP_CWORD) and
//! reads COMPREPLY; fish answers `complete -C`; zsh loads the script under `compinit`, which
//! must register it for `devint`, and runs it with `words`/`CURRENT` set, `_describe` (the
//! completion system's display, which needs a line editor) replaced by one that prints what
//! it is given. A shell that is not installed is skipped, saying so (CI installs all three).

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{Sandbox, DEVINT};

/// The shell `name` in /usr/bin or /bin.
fn shell(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// What `shell` offers for the command line `line` (the last word is the one completed),
/// as the words offered (descriptions dropped).
fn offered(s: &Sandbox, shell_path: &Path, name: &str, line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let script = match name {
        "bash" => format!(
            "source <(devint completions bash)\n\
             COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_TYPE=9; COMP_LINE='{line}'; COMP_POINT={point}\n\
             _clap_complete_devint devint '{current}' '{previous}'\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
            words = words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
            cword = words.len() - 1,
            point = line.len(),
            current = words[words.len() - 1],
            previous = words[words.len().saturating_sub(2)],
        ),
        "fish" => format!("devint completions fish | source\ncomplete -C '{line}'\n"),
        "zsh" => format!(
            "autoload -Uz compinit && compinit -u -d \"$HOME/.zcompdump\"\n\
             source <(devint completions zsh)\n\
             [[ $_comps[devint] == _clap_dynamic_completer_devint ]] || {{ print -u2 'not registered'; exit 3 }}\n\
             _describe() {{ print -l -- \"${{(@P)${{@[-1]}}}}\" }}\n\
             words=({words}); CURRENT={current}\n\
             _clap_dynamic_completer_devint\n",
            words = words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
            current = words.len(),
        ),
        other => panic!("no driver for {other}"),
    };
    let mut c = s.std_command(shell_path);
    c.env("PATH", format!("{}:/usr/bin:/bin", s.bin().display()))
        .env("SHELL", shell_path);
    match name {
        "bash" => c.args(["--norc", "--noprofile", "-c", &script]),
        "fish" => c.args(["--no-config", "-c", &script]),
        _ => c.args(["-f", "-c", &script]),
    };
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{name} failed for {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            // fish: "word\tdescription"; zsh: "word:description".
            let l = l.split('\t').next().unwrap_or_default();
            match name {
                "zsh" => l.split(':').next().unwrap_or_default().to_owned(),
                _ => l.trim_end().to_owned(),
            }
        })
        .filter(|l| !l.is_empty())
        .collect()
}

fn completes_in(name: &str) {
    let Some(path) = shell(name) else {
        eprintln!("skipped: {name} is not installed (Debian: apt-get install {name})");
        return;
    };
    let s = Sandbox::new();
    // The script runs `devint` by name, as it will on a user's PATH.
    std::os::unix::fs::symlink(DEVINT, s.bin().join("devint")).unwrap();
    let cases: [(&str, &[&str]); 5] = [
        ("devint pl", &["plan"]),
        ("devint se", &["serve", "service"]),
        ("devint plan cl", &["claude-code"]),
        (
            "devint plan claude-code --scope ",
            &["user", "project", "managed"],
        ),
        (
            "devint config set ",
            &[
                "gateway_url",
                "plan_ttl",
                "on_upgrade",
                "project_dir",
                "log_level",
            ],
        ),
    ];
    for (line, want) in cases {
        let got = offered(&s, &path, name, line);
        for w in want {
            assert!(
                got.iter().any(|g| g == w),
                "{name}: {line:?} offers {w}: {got:?}"
            );
        }
        assert!(
            !got.iter().any(|g| g == "status" && line == "devint pl"),
            "{name}: only matching words: {got:?}"
        );
    }
}

#[test]
fn bash_completes_commands_tool_ids_and_values() {
    completes_in("bash");
}

#[test]
fn zsh_completes_commands_tool_ids_and_values() {
    completes_in("zsh");
}

#[test]
fn fish_completes_commands_tool_ids_and_values() {
    completes_in("fish");
}
