//! YAML: an Aider `.aider.conf.yml` with comments, quoting and block sequences, read as
//! PyYAML's `yaml.safe_load` reads it.

use std::process::Command;

use serde_json::{json, Value};

use super::*;
use crate::edit::yaml::{spelling, MAX_BYTES, MAX_DEPTH};
use crate::edit::{EditError, ElementEdit, FileAction, KeyOutcome, PriorRecord, SettingsDoc};

const AIDER: &str = "# Aider configuration
# https://aider.chat/docs/config/aider_conf.html

model: 'gpt-4o'  # the default model

# Appearance
dark-mode: yes
code-theme: \"monokai\"

read:
  - CONVENTIONS.md  # team rules
  - docs/notes.md

auto-commits: false
# trailing words
";

fn ours() -> Vec<(&'static str, Value)> {
    vec![
        ("openai-api-base", json!("http://127.0.0.1:4000/v1")),
        ("yes-always", json!(false)),
        ("model", json!("openai/gpt-4o")),
    ]
}

fn reread(text: &str) -> SettingsDoc {
    SettingsDoc::parse(SettingsFormat::Yaml, text).expect("parses")
}

fn written(action: FileAction) -> String {
    match action {
        FileAction::Write(text) => text,
        other => panic!("expected a write, got {other:?}"),
    }
}

#[test]
fn yaml_is_an_editable_format() {
    assert!(EditPlan::new(SettingsFormat::Yaml, Vec::new()).is_ok());
    let doc = reread("a: 1\n");
    assert_eq!(doc.format(), SettingsFormat::Yaml);
    assert_eq!(doc.get(&path("a")), Some(json!(1)));
}

#[test]
fn install_keeps_comments_blank_lines_order_and_quoting() {
    let applied = apply(SettingsFormat::Yaml, Some(AIDER), &ours());
    for kept in [
        "# Aider configuration\n# https://aider.chat/docs/config/aider_conf.html\n\n",
        "  # the default model\n\n# Appearance\ndark-mode: yes\ncode-theme: \"monokai\"\n\n",
        "read:\n  - CONVENTIONS.md  # team rules\n  - docs/notes.md\n\nauto-commits: false\n",
        "# trailing words\n",
    ] {
        assert!(
            applied.text.contains(kept),
            "lost {kept:?} in\n{}",
            applied.text
        );
    }
    // The replaced value keeps its place and its comment.
    assert!(
        applied
            .text
            .contains("model: openai/gpt-4o  # the default model\n"),
        "{}",
        applied.text
    );
    let doc = reread(&applied.text);
    assert_eq!(
        doc.get(&path("openai-api-base")),
        Some(json!("http://127.0.0.1:4000/v1"))
    );
    assert_eq!(doc.get(&path("yes-always")), Some(json!(false)));
    assert_eq!(doc.get(&path("dark-mode")), Some(json!(true)), "YAML 1.1");
    assert_eq!(
        applied.reversal.keys[2].prior,
        PriorRecord::Present {
            value: json!("gpt-4o")
        }
    );
}

#[test]
fn reversing_untouched_yaml_is_byte_identical() {
    let cases: &[Option<&str>] = &[
        Some(AIDER),
        Some(""),
        Some("\n\n"),
        Some("# only a comment\n"),
        Some("# only a comment"),
        Some("model: gpt-4o"),
        Some("model: gpt-4o # no newline at the end"),
        Some("---\nmodel: gpt-4o\n"),
        Some("model: gpt-4o\n...\n"),
        Some("# before\nmodel: gpt-4o\n# between\nauto-commits: false\n# after\n"),
        Some("model: gpt-4o\r\n# between\r\nauto-commits: false\r\n"),
        Some("model: gpt-4o\r\nauto-commits: false"),
        Some("env:\n    A: 1\n    # inside\nother: x\n"),
        None,
    ];
    for &original in cases {
        let applied = apply(
            SettingsFormat::Yaml,
            original,
            &[
                ("openai-api-base", json!("http://127.0.0.1:4000")),
                ("model", json!("gateway/model")),
                ("env.DEVINT", json!({"on": true, "list": ["a", "yes", 1]})),
            ],
        );
        let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
        assert!(back.exact, "{original:?}");
        let expected = match original {
            Some(text) => FileAction::Write(text.to_owned()),
            None => FileAction::Delete,
        };
        assert_eq!(back.file, expected, "{original:?} via\n{}", applied.text);
        // The semantic path gives back the same meaning.
        let semantic = applied
            .reversal
            .reverse_semantic(Some(&applied.text))
            .unwrap();
        match (original, semantic.file) {
            (Some(text), FileAction::Write(restored)) => {
                assert_eq!(
                    reread(&restored).to_value(),
                    reread(text).to_value(),
                    "{original:?} restored as {restored:?}"
                );
            }
            (None, FileAction::Delete) => {}
            (original, other) => panic!("{original:?}: semantic {other:?}"),
        }
    }
}

#[test]
fn a_replaced_key_goes_back_to_its_prior_value_exactly_or_by_meaning() {
    let original = "model: \"gpt-4o\" # mine\nedit-format: diff\n";
    let applied = apply(
        SettingsFormat::Yaml,
        Some(original),
        &[("model", json!("gateway/gpt-4o"))],
    );
    assert_eq!(
        applied.text,
        "model: gateway/gpt-4o # mine\nedit-format: diff\n"
    );
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert_eq!(back.file, FileAction::Write(original.to_owned()));
    assert_eq!(back.keys[0].outcome, KeyOutcome::Restored);

    // The user changed another key meanwhile: the semantic path restores ours.
    let edited = applied.text.replace("diff", "whole") + "# added later\n";
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    assert!(!back.exact);
    let text = written(back.file);
    assert_eq!(
        text,
        "model: gpt-4o # mine\nedit-format: whole\n# added later\n"
    );
    assert_eq!(reread(&text).get(&path("model")), Some(json!("gpt-4o")));
}

#[test]
fn user_edits_and_comments_survive_removal() {
    let applied = apply(SettingsFormat::Yaml, Some(AIDER), &ours());
    let edited = applied
        .text
        .replace("auto-commits: false", "auto-commits: true # mine")
        + "# my note\nmap-tokens: 2048\n";
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    assert!(!back.exact);
    let text = written(back.file);
    for kept in [
        "# Aider configuration\n",
        // Restored by meaning: our value's spelling, the user's comment.
        "model: gpt-4o  # the default model\n",
        "auto-commits: true # mine\n",
        "# my note\nmap-tokens: 2048\n",
        "# trailing words\n",
    ] {
        assert!(text.contains(kept), "lost {kept:?} in\n{text}");
    }
    let doc = reread(&text);
    assert_eq!(doc.get(&path("openai-api-base")), None);
    assert_eq!(doc.get(&path("yes-always")), None);
    assert_eq!(doc.get(&path("map-tokens")), Some(json!(2048)));
}

#[test]
fn created_mappings_are_pruned_and_an_emptied_root_is_left_as_it_was() {
    for original in ["", "# only a comment\n", "\n"] {
        let applied = apply(
            SettingsFormat::Yaml,
            Some(original),
            &[("env.DEVINT_URL", json!("http://127.0.0.1:4000"))],
        );
        assert_eq!(applied.reversal.created, vec![path("env")]);
        let back = applied
            .reversal
            .reverse_semantic(Some(&applied.text))
            .unwrap();
        assert_eq!(back.file, FileAction::Write(original.to_owned()));
    }
    let applied = apply(
        SettingsFormat::Yaml,
        None,
        &[("env.DEVINT_URL", json!("x"))],
    );
    let back = applied
        .reversal
        .reverse_semantic(Some(&applied.text))
        .unwrap();
    assert_eq!(back.file, FileAction::Delete);
}

#[test]
fn crlf_files_get_crlf_in_what_we_add() {
    let original = "# mine\r\nmodel: gpt-4o\r\nenv:\r\n  A: 1\r\n";
    let applied = apply(
        SettingsFormat::Yaml,
        Some(original),
        &[
            ("env.B", json!("two")),
            ("openai-api-base", json!("http://127.0.0.1:4000")),
            ("list", json!(["a", "b"])),
        ],
    );
    let text = &applied.text;
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "a bare LF in {text:?}"
    );
    assert!(text.contains("  B: two\r\n"), "{text:?}");
    let back = applied.reversal.reverse(Some(text)).unwrap();
    assert_eq!(back.file, FileAction::Write(original.to_owned()));
    let back = applied.reversal.reverse_semantic(Some(text)).unwrap();
    assert_eq!(back.file, FileAction::Write(original.to_owned()));
}

#[test]
fn elements_join_block_sequences_and_leave_cleanly() {
    let original = "read:\n  - CONVENTIONS.md  # team rules\n  - notes.md\nlint-cmd:\n- ruff\n";
    let plan = plan(SettingsFormat::Yaml, &[])
        .with_elements(vec![
            ElementEdit {
                path: path("read"),
                element: json!("DEVINT.md"),
            },
            ElementEdit {
                path: path("lint-cmd"),
                element: json!({"python": "devint lint", "on": true}),
            },
            ElementEdit {
                path: path("test-cmd"),
                element: json!("devint test"),
            },
        ])
        .unwrap();
    let applied = plan.apply(Some(original), |_, _| false).unwrap();
    let doc = reread(&applied.text);
    assert_eq!(
        doc.get(&path("read")),
        Some(json!(["CONVENTIONS.md", "notes.md", "DEVINT.md"]))
    );
    assert_eq!(
        doc.get(&path("lint-cmd")),
        Some(json!(["ruff", {"python": "devint lint", "on": true}]))
    );
    assert_eq!(doc.get(&path("test-cmd")), Some(json!(["devint test"])));
    assert!(applied.text.contains("  - CONVENTIONS.md  # team rules\n"));
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert_eq!(back.file, FileAction::Write(original.to_owned()));

    // The user adds their own entry: only ours leave.
    let edited = applied
        .text
        .replace("  - notes.md\n", "  - notes.md\n  - mine.md\n");
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    let text = written(back.file);
    let doc = reread(&text);
    assert_eq!(
        doc.get(&path("read")),
        Some(json!(["CONVENTIONS.md", "notes.md", "mine.md"]))
    );
    assert_eq!(doc.get(&path("lint-cmd")), Some(json!(["ruff"])));
    assert_eq!(doc.get(&path("test-cmd")), None, "created, pruned");
    assert!(text.contains("# team rules"), "{text}");
}

#[test]
fn flow_collections_are_read_and_edited_through_the_read_back_check() {
    let original = "read: [CONVENTIONS.md, notes.md]\nenv: {A: '1'}\n";
    let mut doc = reread(original);
    assert_eq!(
        doc.get(&path("read")),
        Some(json!(["CONVENTIONS.md", "notes.md"]))
    );
    doc.add_element(&path("read"), json!("a, b: [c]")).unwrap();
    doc.set(&path("env.B"), json!("yes")).unwrap();
    let doc = reread(&doc.to_string());
    assert_eq!(
        doc.get(&path("read")),
        Some(json!(["CONVENTIONS.md", "notes.md", "a, b: [c]"]))
    );
    assert_eq!(doc.get(&path("env")), Some(json!({"A": "1", "B": "yes"})));
}

#[test]
fn a_scalar_on_the_way_is_refused_and_nothing_changes() {
    for (text, found) in [
        ("env: 1\n", "number"),
        ("env:\n", "null"),
        ("env: [a]\n", "array"),
    ] {
        let err = plan(SettingsFormat::Yaml, &[("env.X", json!(1))])
            .apply(Some(text), |_, _| false)
            .unwrap_err();
        assert!(
            matches!(&err, EditError::NotAContainer { found: f, .. } if *f == found),
            "{text:?}: {err:?}"
        );
    }
    let err = plan(SettingsFormat::Yaml, &[("x", json!(1))])
        .apply(Some("- a\n- b\n"), |_, _| false)
        .unwrap_err();
    assert!(
        matches!(&err, EditError::NotAContainer { blocker, .. } if blocker == "the document root"),
        "{err:?}"
    );
}

#[test]
fn a_withheld_yaml_prior_is_not_stored_and_the_key_is_residual() {
    let text = "openai-api-key: sk-proj-secret\nmodel: gpt-4o\n";
    let applied = plan(
        SettingsFormat::Yaml,
        &[("openai-api-key", json!("gateway-issued"))],
    )
    .apply(Some(text), |path, _| path.leaf().ends_with("api-key"))
    .unwrap();
    let stored = serde_json::to_string(&applied.reversal).unwrap();
    assert!(!stored.contains("sk-proj"), "{stored}");
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert_eq!(
        back.residual().collect::<Vec<_>>(),
        vec![&path("openai-api-key")]
    );
    let restored = written(back.file);
    assert_eq!(restored, "model: gpt-4o\n");
}

#[test]
fn values_without_a_json_form_are_reported_not_guessed() {
    let doc = reread("temperature: .inf\nseed: 123456789012345678901234567890\nok: 1\n");
    assert_eq!(doc.to_value(), None);
    assert_eq!(doc.get(&path("temperature")), None);
    assert_eq!(doc.get(&path("ok")), Some(json!(1)));
    let mut doc = doc;
    let err = doc.set(&path("seed"), json!(1)).unwrap_err();
    assert!(matches!(err, EditError::Unrepresentable { .. }), "{err:?}");
    assert!(doc.to_string().contains("seed: 1234567890"));
}

// ---------------------------------------------------------------------------------------
// Spelling and meaning of scalars (YAML 1.1, as PyYAML reads it).

/// Values whose plain spelling some YAML reader would take for something else, and others.
fn tricky_strings() -> Vec<&'static str> {
    vec![
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "Y",
        "N",
        "true",
        "False",
        "TRUE",
        "null",
        "Null",
        "~",
        "",
        " ",
        "1",
        "-1",
        "+1",
        "0x1F",
        "017",
        "0o17",
        "0b101",
        "1_000",
        "1:30",
        "1.5",
        "1e3",
        ".5",
        "1.",
        ".inf",
        "-.Inf",
        ".NaN",
        "2001-12-14",
        "2001-12-14 21:59:43.10 -5",
        "=",
        "<<",
        "a: b",
        "a #b",
        "a#b",
        "key:",
        ":x",
        "-x",
        "- x",
        "?x",
        "? x",
        "@x",
        "`x",
        "!x",
        "&x",
        "*x",
        "%x",
        "|x",
        ">x",
        "'q",
        "\"dq",
        "[x",
        "]x",
        "{x",
        "}x",
        ",x",
        "x,y",
        "x, y",
        "#x",
        " lead",
        "trail ",
        "tab\there",
        "line\nbreak",
        "cr\rx",
        "nel\u{85}x",
        "ls\u{2028}x",
        "bom\u{feff}x",
        "bell\u{7}",
        "é ü",
        "日本語",
        "emoji 🙂",
        "back\\slash",
        "http://127.0.0.1:4000/v1",
        "/usr/bin/env",
        "_under",
        "a b  c",
        "Bash(curl:*)",
        "sk-proj-abc",
        "x=y",
        "~/bin",
        "0",
        "00",
        "09",
        "1.2.3",
        "v1.2",
    ]
}

#[test]
fn values_are_spelled_for_yaml_1_1_and_1_2_readers() {
    for (value, spelled) in [
        (json!(true), "true"),
        (json!(false), "false"),
        (json!(null), "null"),
        (json!(42), "42"),
        (json!(-7), "-7"),
        (json!(u64::MAX), "18446744073709551615"),
        (json!(1.5), "1.5"),
        (json!(1.0), "1.0"),
        (json!(1e100), "1.0e+100"),
        (json!(1.5e-7), "1.5e-7"),
        (json!("http://127.0.0.1:4000"), "http://127.0.0.1:4000"),
        (json!("openai/gpt-4o"), "openai/gpt-4o"),
        (json!("yes"), "'yes'"),
        (json!("No"), "'No'"),
        (json!("y"), "'y'"),
        (json!("on"), "'on'"),
        (json!("null"), "'null'"),
        (json!("~"), "'~'"),
        (json!(""), "''"),
        (json!("1_000"), "'1_000'"),
        (json!("2001-12-14"), "'2001-12-14'"),
        (json!("="), "'='"),
        (json!("a: b"), "'a: b'"),
        (json!("a #b"), "'a #b'"),
        (json!("it's"), "'it''s'"),
        (json!("line\nbreak"), "\"line\\nbreak\""),
        (json!("tab\there"), "\"tab\\there\""),
    ] {
        assert_eq!(spelling::written(&value), spelled, "{value}");
    }
}

#[test]
fn plain_scalars_mean_what_pyyaml_reads() {
    for (plain, meaning) in [
        ("yes", json!(true)),
        ("No", json!(false)),
        ("ON", json!(true)),
        ("off", json!(false)),
        ("y", json!("y")),
        ("n", json!("n")),
        ("~", json!(null)),
        ("", json!(null)),
        ("NULL", json!(null)),
        ("0", json!(0)),
        ("-0", json!(0)),
        ("017", json!(15)),
        ("0o17", json!("0o17")),
        ("09", json!("09")),
        ("0x1F", json!(31)),
        ("-0b101", json!(-5)),
        ("1_000", json!(1000)),
        ("+12", json!(12)),
        ("1:30", json!(90)),
        ("1:30.5", json!(90.5)),
        ("1.5", json!(1.5)),
        ("1.", json!(1.0)),
        (".5", json!(0.5)),
        ("1.0e+3", json!(1000.0)),
        ("1.0e3", json!("1.0e3")),
        ("1e3", json!("1e3")),
        ("1.2.3", json!("1.2.3")),
        ("2001-12-14", json!("2001-12-14")),
        ("9223372036854775807", json!(i64::MAX)),
        ("-9223372036854775808", json!(i64::MIN)),
        ("18446744073709551615", json!(u64::MAX)),
    ] {
        assert_eq!(
            spelling::plain(plain),
            Ok(Some(meaning.clone())),
            "{plain:?}"
        );
    }
    for opaque in [
        ".inf",
        "-.Inf",
        ".nan",
        "18446744073709551616",
        "-9223372036854775809",
    ] {
        assert_eq!(spelling::plain(opaque), Ok(None), "{opaque:?}");
    }
    for refused in ["<<", "="] {
        assert!(spelling::plain(refused).is_err(), "{refused:?}");
    }
}

/// PyYAML through `python3`, or the reason it cannot be used here.
fn pyyaml(document: &str) -> Result<Value, String> {
    let script = "import json, sys, yaml\n\
                  print(json.dumps(yaml.safe_load(sys.stdin.read()), default=str))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3 cannot be run: {e}"))?;
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("piped");
        stdin
            .write_all(document.as_bytes())
            .map_err(|e| format!("python3 stdin: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("python3: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("PyYAML's output: {e}"))
}

/// Whether PyYAML can be used; prints why not.
fn pyyaml_present() -> bool {
    let present = Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        eprintln!("SKIPPED: python3 with PyYAML (`import yaml`) is not available here");
    }
    present
}

#[test]
fn written_values_read_back_identically_under_pyyaml() {
    if !pyyaml_present() {
        return;
    }
    let mut doc = reread("# values written by devint\nexisting: 1\nflow: {a: 1}\nflow-list: [a]\n");
    let mut expected = serde_json::Map::new();
    expected.insert("existing".into(), json!(1));
    let mut flow = serde_json::Map::new();
    flow.insert("a".into(), json!(1));
    let mut flow_list = vec![json!("a")];
    for (i, s) in tricky_strings().into_iter().enumerate() {
        let key = format!("k{i}");
        doc.set(&path(&key), json!(s)).unwrap();
        // Inside flow collections, where other characters are indicators.
        let in_flow = crate::edit::KeyPath::new(["flow", s]).unwrap();
        doc.set(&in_flow, json!(s)).unwrap();
        flow.insert(s.to_owned(), json!(s));
        doc.add_element(&path("flow-list"), json!(s)).unwrap();
        flow_list.push(json!(s));
        expected.insert(key, json!(s));
    }
    expected.insert("flow".into(), Value::Object(flow));
    expected.insert("flow-list".into(), Value::Array(flow_list));
    // Tricky strings as keys too, nested, and in sequences.
    let nested: serde_json::Map<String, Value> = tricky_strings()
        .into_iter()
        .map(|s| (s.to_owned(), json!(s)))
        .collect();
    let key = crate::edit::KeyPath::new(["nested"]).unwrap();
    doc.set(&key, Value::Object(nested.clone())).unwrap();
    expected.insert("nested".into(), Value::Object(nested));
    let list = json!(tricky_strings());
    doc.set(&path("list"), list.clone()).unwrap();
    expected.insert("list".into(), list);
    for (i, v) in [
        json!(true),
        json!(false),
        json!(null),
        json!(0),
        json!(-42),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1.5),
        json!(-0.25),
        json!(1.0),
        json!(1e100),
        json!(1.5e-7),
        json!(123456789.125),
        json!([]),
        json!({}),
        json!([{"a": [1, {"b": "yes"}]}, [], "x"]),
    ]
    .into_iter()
    .enumerate()
    {
        let key = format!("v{i}");
        doc.set(&path(&key), v.clone()).unwrap();
        expected.insert(key, v);
    }
    let text = doc.to_string();
    let read = pyyaml(&text).unwrap_or_else(|e| panic!("PyYAML refused\n{text}\n{e}"));
    assert_eq!(read, Value::Object(expected.clone()), "as written:\n{text}");
    assert_eq!(reread(&text).to_value(), Some(Value::Object(expected)));
}

#[test]
fn our_reading_of_a_user_file_agrees_with_pyyaml() {
    if !pyyaml_present() {
        return;
    }
    let user = "# every way a user spells a scalar\n\
        bools: [yes, No, ON, off, true, False, y, n]\n\
        nulls: [~, null, Null, '', \"\"]\n\
        empty:\n\
        ints: [0, -0, 017, 0x1F, -0b101, 1_000, +12, 1:30, 09, 0o17]\n\
        floats: [1.5, 1., .5, 1.0e+3, 1:30.5, -2.5]\n\
        strings: [1e3, 1.0e3, 1.2.3, v1, 'yes', \"no\", 'it''s', \"tab\\there\"]\n\
        date: 2001-12-14\n\
        block: |\n  two\n  lines\n\
        folded: >-\n  one\n  line\n\
        multi word plain: some words here # and a comment\n\
        \"quoted key\": 'a: b'\n\
        nested:\n  deeper:\n    - a\n    - {b: c, d: [e, f]}\n";
    let ours = reread(user).to_value().expect("representable");
    let theirs = pyyaml(user).expect("PyYAML reads it");
    assert_eq!(ours, theirs);
}

// ---------------------------------------------------------------------------------------
// Refusals: what does not parse, what is not edited, what is hostile.

#[test]
fn broken_yaml_is_refused_with_its_position_and_never_rewritten() {
    for (text, line) in [
        ("model: gpt-4o\n  dark-mode: true\n", 2),
        ("model: a: b\n", 1),
        ("read:\n\t- x\n", 2),
        ("- a\nb: 1\n", 2),
        ("a: 'unterminated\n", 1),
        ("a: [1, 2\n", 2),
    ] {
        let err = plan(SettingsFormat::Yaml, &ours())
            .apply(Some(text), |_, _| false)
            .unwrap_err();
        match err {
            EditError::Parse {
                format: SettingsFormat::Yaml,
                line: at,
                column,
                ..
            } => {
                assert_eq!(at, line, "{text:?}: {err}");
                assert!(column >= 1);
                assert!(err.to_string().contains(&format!("line {line}")), "{err}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn unsupported_constructs_are_refused_by_name_and_position() {
    for (text, line, construct) in [
        ("base: &b 1\nother: 2\n", 1, "anchor"),
        ("a: !!str 1\n", 1, "tag"),
        ("a: !custom x\n", 1, "tag"),
        ("a: 1\n---\nb: 2\n", 2, "second document"),
        ("on: push\n", 1, "boolean, number or null"),
        ("1: one\n", 1, "boolean, number or null"),
        ("~: x\n", 1, "boolean, number or null"),
        ("? [a, b]\n: c\n", 1, "collection as a mapping key"),
        ("a: 1\nb: 2\na: 3\n", 3, "repeated"),
        ("<<: {a: 1}\n", 1, "merge key"),
        ("a: =\n", 1, "value tag"),
    ] {
        let err = SettingsDoc::parse(SettingsFormat::Yaml, text)
            .err()
            .unwrap_or_else(|| panic!("{text:?} was accepted"));
        match &err {
            EditError::UnsupportedConstruct {
                line: at,
                construct: what,
                ..
            } => {
                assert_eq!(*at, line, "{text:?}: {err}");
                assert!(what.contains(construct), "{text:?}: {err}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
        assert!(err.to_string().contains("left untouched"), "{err}");
    }
}

#[test]
fn hostile_documents_are_refused_quickly_without_blowing_the_stack() {
    let started = std::time::Instant::now();
    // Billion laughs: refused at the first anchor, nothing is expanded.
    let laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n\
                  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n\
                  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n\
                  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
                  g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n\
                  h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n\
                  i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    assert!(matches!(
        SettingsDoc::parse(SettingsFormat::Yaml, laughs),
        Err(EditError::UnsupportedConstruct { line: 1, .. })
    ));
    // Deep nesting, in every style: refused, not recursed into.
    let mut block = String::new();
    for depth in 0..=MAX_DEPTH {
        block.push_str(&" ".repeat(depth));
        block.push_str("a:\n");
    }
    block.push_str(&" ".repeat(MAX_DEPTH + 1));
    block.push_str("b: 1\n");
    for deep in [
        "[".repeat(100_000),
        "{a: ".repeat(100_000),
        "- ".repeat(100_000) + "x\n",
        block,
    ] {
        let err = SettingsDoc::parse(SettingsFormat::Yaml, &deep)
            .err()
            .expect("refused");
        assert!(
            matches!(
                err,
                EditError::UnsupportedConstruct { .. } | EditError::Parse { .. }
            ),
            "{err:?}"
        );
    }
    // Just inside the bound is read and edited.
    let mut nested = String::new();
    for depth in 0..MAX_DEPTH - 1 {
        nested.push_str(&"  ".repeat(depth));
        nested.push_str("a:\n");
    }
    nested.push_str(&"  ".repeat(MAX_DEPTH - 1));
    nested.push_str("b: 1\n");
    let mut doc = reread(&nested);
    doc.set(&path("devint"), json!(true)).unwrap();
    // Huge: refused unread past the bound.
    let huge = "k: v\n".repeat(MAX_BYTES / 5 + 1);
    assert!(matches!(
        SettingsDoc::parse(SettingsFormat::Yaml, &huge),
        Err(EditError::UnsupportedConstruct { .. })
    ));
    // A large document within the bound is still edited.
    let large: String = (0..5_000)
        .map(|i| format!("key{i}: value {i} # note\n"))
        .collect();
    let applied = apply(SettingsFormat::Yaml, Some(&large), &ours());
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert_eq!(back.file, FileAction::Write(large));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
}
