//! `devint demo` end to end: the walk-through runs against the real server in its own
//! sandbox, leaves the settings file byte-identical and touches nothing outside.

mod cli_support;

use cli_support::Sandbox;

#[test]
fn demo_walks_the_lifecycle_in_its_sandbox_and_touches_nothing_else() {
    let s = Sandbox::new();
    let out = s.devint().arg("demo").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("== 1. list"), "{text}");
    // The tool list's columns are as wide as its longest id: only the words are pinned.
    assert!(
        text.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.starts_with(&["claude-code", "Claude", "Code", "yes"])
        }),
        "{text}"
    );
    assert!(text.contains("== 2. plan"), "{text}");
    assert!(
        text.contains("settings file byte-identical to the original: yes"),
        "{text}"
    );
    if text.contains("no lifecycle backend") {
        // Until the reference runtime lands, the runtime refuses plan and the demo says so.
        assert!(!out.status.success());
        assert!(text.contains("demo stopped early"), "{text}");
    } else {
        assert!(out.status.success(), "{text}");
        for step in [
            "3. apply",
            "4. status",
            "5. verify",
            "6. simulated drift",
            "8. repair",
            "9. remove",
        ] {
            assert!(text.contains(step), "missing {step}: {text}");
        }
        assert!(text.contains("demo complete"), "{text}");
    }
    // The sandbox is gone, and our HOME (the test's) was never written to.
    let sandbox = text
        .lines()
        .find_map(|l| l.strip_prefix("devint demo — sandbox "))
        .unwrap();
    assert!(sandbox.starts_with("/tmp/devint-demo-"));
    assert!(!std::path::Path::new(sandbox).exists());
    assert_eq!(std::fs::read_dir(s.home()).unwrap().count(), 1); // only the harness's .claude
    assert_eq!(
        std::fs::read_dir(s.home().join(".claude")).unwrap().count(),
        0
    );
    assert!(!s.state().exists());
}
