//! The generated capability table (`docs/tools.md`), rendered from the descriptors.
//!
//! Owns the Markdown projection only. Must never be edited by hand in its output file:
//! a test compares the committed file with [`capability_table_markdown`].

use std::fmt::Write as _;

use super::descriptor::{
    DeclaredSupport, Mechanism, MechanismSupport, PathBase, RuleShape, RuleWriting, ToolDescriptor,
    ValueTemplate, Versions,
};
use super::engine::{edit_mode, EditMode};
use super::rule::RuleKind;
use super::vocabulary::Capability;

/// `docs/tools.md`, generated from every registered descriptor.
pub fn capability_table_markdown() -> String {
    let tools = super::all();
    let mut md = String::new();
    md.push_str("# Supported tools\n\n");
    md.push_str(
        "<!-- Generated from crates/devint-runtime/src/adapters/tools/*.rs by `capability_table_markdown()`. \
         Do not edit: run `DEVINT_BLESS=1 cargo test -p devint-runtime --test adapters_docs`. -->\n\n",
    );
    md.push_str(
        "Declared support per tool and capability (spec §4 order). `yes` = supported, \
         `no` = unsupported (reason below), `>= x.y.z` = requires that version. \
         What a host actually gets is resolved against the detected version at `list_tools` time. \
         Settings paths are the Linux locations; `append` keys add devint's entries to the \
         user's list instead of replacing it.\n\n",
    );
    md.push_str("| tool |");
    for c in Capability::ALL {
        let _ = write!(md, " {} |", c.token());
    }
    md.push_str("\n|---|");
    for _ in Capability::ALL {
        md.push_str("---|");
    }
    md.push('\n');
    for t in tools {
        let _ = write!(md, "| `{}` |", t.id);
        for row in &t.capabilities {
            let cell = match row.support {
                DeclaredSupport::Supported => "yes".to_owned(),
                DeclaredSupport::Unsupported { .. } => "no".to_owned(),
                DeclaredSupport::RequiresVersion { min } => format!(">= {min}"),
            };
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }
    for t in tools {
        tool_section(&mut md, t);
    }
    md
}

fn tool_section(md: &mut String, t: &ToolDescriptor) {
    let _ = write!(md, "\n## {} (`{}`)\n\n", t.display_name, t.id);
    let d = &t.detection;
    if !d.binaries.is_empty() {
        let _ = writeln!(
            md,
            "- Detection: binary {} on `PATH`, `{} {}`, supported `{}`",
            d.binaries
                .iter()
                .map(|b| format!("`{b}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            d.binaries[0],
            d.version_args.join(" "),
            d.supported
        );
        let mut seen: Vec<String> = Vec::new();
        for dir in d.install_dirs.iter().flat_map(|g| g.iter()) {
            let shown = dir.display();
            if !seen.contains(&shown) {
                let _ = writeln!(md, "- Also searched: `{shown}` ({})", dir.source);
                seen.push(shown);
            }
        }
        if let Some(config) = d.config_dir {
            let _ = writeln!(
                md,
                "- Configuration directory: `~/{config}` (present without the binary: \"configured but binary not found\")"
            );
        }
    }
    for e in d.extensions {
        let _ = writeln!(
            md,
            "- Detection: extension directory `~/{}/{}<version>`, supported `{}`",
            e.parent, e.prefix, d.supported
        );
    }
    if t.settings.is_empty() {
        md.push_str("- Settings files: none this adapter edits\n");
    }
    for s in t.settings {
        let path = match s.base {
            PathBase::Home => format!("~/{}", s.path),
            PathBase::Project => format!("<project>/{}", s.path),
            PathBase::Absolute => s.path.to_owned(),
        };
        let _ = writeln!(
            md,
            "- Settings ({}): `{}` ({})",
            s.scope.token(),
            path,
            s.format.token()
        );
    }
    for w in t.warnings {
        let scopes: Vec<&str> = w.scopes.scopes().map(|s| s.token()).collect();
        let _ = writeln!(md, "- Warning ({}): {}", scopes.join(", "), w.text);
    }
    md.push_str("\n| mechanism | how | keys |\n|---|---|---|\n");
    for m in Mechanism::ALL {
        let support = t.mechanisms.get(m);
        let how = match support {
            MechanismSupport::Native { .. } => "native".to_owned(),
            MechanismSupport::Adapted { how, .. } => format!("adapted: {how}"),
            MechanismSupport::Unsupported { reason } => format!("unsupported: {reason}"),
        };
        let keys: Vec<String> = support
            .edits()
            .iter()
            .map(|e| {
                let mut k = e.path.join(" › ");
                if let ValueTemplate::DenyRules {
                    shape: RuleShape::ObjectKey(_),
                    ..
                } = e.value
                {
                    k.push_str(" › <rule>");
                }
                let scopes: Vec<&str> = e.scopes.scopes().map(|s| s.token()).collect();
                let mode = match edit_mode(e.value) {
                    EditMode::AppendToList => "append, ",
                    EditMode::Replace => "",
                };
                format!("`{k}` ({mode}{}{})", scopes.join("/"), versions(e.versions))
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            m.capability().token(),
            how,
            keys.join(", ")
        );
    }
    deny_rule_table(md, t);
    md.push_str("\n| capability | declared | source | checked |\n|---|---|---|---|\n");
    for row in &t.capabilities {
        let declared = match row.support {
            DeclaredSupport::Supported => "supported".to_owned(),
            DeclaredSupport::Unsupported { reason } => format!("unsupported: {reason}"),
            DeclaredSupport::RequiresVersion { min } => format!("requires_version >= {min}"),
        };
        let _ = writeln!(
            md,
            "| {} | {} | <{}> | {} |",
            row.capability.token(),
            declared,
            row.source,
            row.checked
        );
    }
}

/// `, since x.y.z` / `, before x.y.z` for a key some versions do not read.
fn versions(v: Versions) -> String {
    let mut out = String::new();
    if let Some(since) = v.since {
        let _ = write!(out, ", since {since}");
    }
    if let Some(before) = v.before {
        let _ = write!(out, ", before {before}");
    }
    out
}

/// How the tool writes each kind of tool-neutral deny rule, or that it cannot: per path,
/// the entries for a rule nothing narrows and for a narrowed one, and how strongly each is
/// held (a whole tool removed can be enforced while a pattern on one call is advisory).
fn deny_rule_table(md: &mut String, t: &ToolDescriptor) {
    let writings: Vec<(&[&str], &RuleWriting)> = t
        .mechanisms
        .tool_action_approval
        .edits()
        .iter()
        .filter_map(|e| match e.value {
            ValueTemplate::DenyRules { rules, .. } => Some((e.path, rules)),
            _ => None,
        })
        .flat_map(|(path, rules)| rules.iter().map(move |r| (path, r)))
        .collect();
    md.push_str("\n| deny rule | written as (every / narrowed) | strength |\n|---|---|---|\n");
    for kind in RuleKind::ALL {
        let of_kind: Vec<_> = writings.iter().filter(|(_, w)| w.kind == kind).collect();
        if of_kind.is_empty() {
            let _ = writeln!(md, "| {} | not enforceable | - |", kind.token());
            continue;
        }
        let mut paths: Vec<&[&str]> = Vec::new();
        for (path, _) in &of_kind {
            if !paths.contains(path) {
                paths.push(path);
            }
        }
        let mut written = Vec::new();
        let mut strengths = Vec::new();
        for path in paths {
            let at: Vec<&RuleWriting> = of_kind
                .iter()
                .filter(|(p, _)| *p == path)
                .map(|(_, w)| *w)
                .collect();
            let form = |entries: fn(&RuleWriting) -> &[&str]| {
                let shown: Vec<String> = at
                    .iter()
                    .flat_map(|w| entries(w))
                    .map(|e| format!("`{e}`"))
                    .collect();
                let strength = at
                    .iter()
                    .filter(|w| !entries(w).is_empty())
                    .map(|w| w.strength)
                    .max();
                match strength {
                    Some(s) => (shown.join(", "), s.token()),
                    None => ("not enforceable".to_owned(), "-"),
                }
            };
            let (every, every_strength) = form(|w| w.every);
            let (narrowed, narrowed_strength) = form(|w| w.narrowed);
            written.push(format!("{every} / {narrowed} in `{}`", path.join(" › ")));
            strengths.push(match (every_strength, narrowed_strength) {
                (e, n) if e == n || n == "-" => e.to_owned(),
                ("-", n) => n.to_owned(),
                (e, n) => format!("{e} / {n}"),
            });
        }
        strengths.dedup();
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            kind.token(),
            written.join("; "),
            strengths.join("; ")
        );
    }
}
