//! The `Debug` of a client's request: `pb::Request` and its argument messages (`build.rs`
//! tells prost not to derive it).
//!
//! A request is the one frame that carries a secret (`capability_token`, spec §6) and it is
//! full of text a client chose. Its `Debug` therefore shows the token only as "absent" or
//! its length, and any other text only when it is a bounded, printable token with nothing
//! credential-shaped in it (the [`Sentence`](super::Sentence) rules, long hex runs
//! included, so a token pasted into `tool_id` or `plan_id` is withheld too); anything else
//! shows as its length. So `{:?}` of a request, a `ClientFrame`, an error or a log line
//! built from them never shows a token.
//!
//! It must never print any part of the token, not even a prefix.

use std::fmt;

use super::sentence::check_credential_shapes;
use crate::wire::pb;

/// The longest client text `Debug` shows verbatim.
const SHOWN_MAX: usize = 128;

/// The capability token as `Debug` shows it: absent, or its length.
struct Redacted<'a>(&'a str);

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("<absent>")
        } else {
            write!(f, "<redacted {} bytes>", self.0.len())
        }
    }
}

/// Client text as `Debug` shows it: verbatim when it is at most [`SHOWN_MAX`] bytes of
/// printable ASCII without whitespace and nothing credential-shaped, else its length.
struct Shown<'a>(&'a str);

impl Shown<'_> {
    fn verbatim(&self) -> bool {
        self.0.len() <= SHOWN_MAX
            && self.0.bytes().all(|b| (0x21..=0x7e).contains(&b))
            && check_credential_shapes(self.0).is_ok()
    }
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.verbatim() {
            fmt::Debug::fmt(self.0, f)
        } else {
            write!(f, "<withheld {} bytes>", self.0.len())
        }
    }
}

// Each impl destructures its message without `..`: a field added to the schema does not
// compile until it is shown here (or redacted).

impl fmt::Debug for pb::Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pb::Request {
            request_id,
            verb,
            capability_token,
            tool_id,
            plan,
            apply,
            remove,
            events,
            approval,
        } = self;
        f.debug_struct("Request")
            .field("request_id", request_id)
            .field("verb", verb)
            .field("capability_token", &Redacted(capability_token))
            .field("tool_id", &Shown(tool_id))
            .field("plan", plan)
            .field("apply", apply)
            .field("remove", remove)
            .field("events", events)
            .field("approval", approval)
            .finish()
    }
}

impl fmt::Debug for pb::PlanArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pb::PlanArgs {
            profile,
            requested_level,
            settings_scope,
            allow_privileged_host_steps,
            policy_profile_id,
        } = self;
        f.debug_struct("PlanArgs")
            .field("profile", &Shown(profile))
            .field("requested_level", &Shown(requested_level))
            .field("settings_scope", &Shown(settings_scope))
            .field("allow_privileged_host_steps", allow_privileged_host_steps)
            .field("policy_profile_id", &Shown(policy_profile_id))
            .finish()
    }
}

impl fmt::Debug for pb::ApplyArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pb::ApplyArgs { plan_id } = self;
        f.debug_struct("ApplyArgs")
            .field("plan_id", &Shown(plan_id))
            .finish()
    }
}

impl fmt::Debug for pb::RemoveArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pb::RemoveArgs { plan_id } = self;
        f.debug_struct("RemoveArgs")
            .field("plan_id", &Shown(plan_id))
            .finish()
    }
}

impl fmt::Debug for pb::ApprovalRelayArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pb::ApprovalRelayArgs {
            approval_id,
            user_input,
        } = self;
        f.debug_struct("ApprovalRelayArgs")
            .field("approval_id", &Shown(approval_id))
            .field("user_input", &Shown(user_input))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ClientFrame;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn request(token: &str, tool: &str) -> pb::Request {
        pb::Request {
            request_id: 7,
            verb: pb::Verb::Apply as i32,
            capability_token: token.into(),
            tool_id: tool.into(),
            apply: Some(pb::ApplyArgs {
                plan_id: "plan-1".into(),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_token_shows_as_its_length_only() {
        let r = request(TOKEN, "codex");
        for shown in [format!("{r:?}"), format!("{r:#?}")] {
            assert!(shown.contains("<redacted 64 bytes>"), "{shown}");
            assert!(!shown.contains("0123456789"), "{shown}");
            assert!(
                shown.contains("\"codex\"") && shown.contains("\"plan-1\""),
                "{shown}"
            );
        }
        let frame = ClientFrame::Request(r);
        assert!(!format!("{frame:?}").contains("abcdef"));
        assert!(format!("{:?}", pb::Request::default()).contains("capability_token: <absent>"));
    }

    #[test]
    fn a_token_pasted_into_any_text_field_is_withheld() {
        let half = &TOKEN[..32];
        let mut r = request(TOKEN, TOKEN);
        r.apply = Some(pb::ApplyArgs {
            plan_id: half.into(),
        });
        r.plan = Some(pb::PlanArgs {
            profile: format!("x-{TOKEN}"),
            policy_profile_id: "sk-ant-api03-abcdefghijklmnop".into(),
            ..Default::default()
        });
        r.approval = Some(pb::ApprovalRelayArgs {
            approval_id: format!("token={half}"),
            user_input: "approve".into(),
        });
        let shown = format!("{r:?}");
        for secret in [half, &TOKEN[32..], "sk-ant"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("tool_id: <withheld 64 bytes>"), "{shown}");
        assert!(shown.contains("user_input: \"approve\""), "{shown}");
    }

    #[test]
    fn text_with_whitespace_control_bytes_or_over_128_bytes_shows_its_length() {
        for text in ["a b", "a\nb", "\u{7f}", &"a".repeat(129)] {
            let shown = format!("{:?}", request("", text));
            assert!(
                shown.contains(&format!("tool_id: <withheld {} bytes>", text.len())),
                "{shown}"
            );
        }
    }
}
