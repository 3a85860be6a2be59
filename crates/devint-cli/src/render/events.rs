//! `devint events` and `devint approve`.

use devint::verbs::{ApprovalRelayAck, ScopedEventList};

use crate::output::Page;
use crate::words;

/// Scoped events, or a line saying there were none.
pub fn events(p: &Page, tool: &str, since: u64, list: &ScopedEventList) -> String {
    if list.events.is_empty() {
        return if since == 0 {
            format!("No events for {tool}.\n")
        } else {
            format!("No events for {tool} since {}.\n", words::time(since))
        };
    }
    let mut t = p.table(&["AT", "VERDICT", "MECHANISM", "COUNT", "REDACTED"]);
    for e in &list.events {
        t.row([
            words::time(e.occurred_at_unix_secs.get()),
            words::verdict(e.verdict_kind).to_owned(),
            words::mechanism(e.mechanism.as_str()),
            e.count.to_string(),
            e.redaction_labels
                .iter()
                .map(|l| l.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ]);
    }
    t.render("")
}

/// A relayed approval answer.
pub fn approval(tool: &str, ack: &ApprovalRelayAck) -> String {
    format!(
        "Relayed your answer \"{}\" for approval {} of {tool} at {}.\nThe runtime accepted it for adjudication: it decides what happens, not devint.\n",
        words::user_input(ack.relayed_input),
        ack.approval_id,
        words::time(ack.accepted_at_unix_secs.get())
    )
}
