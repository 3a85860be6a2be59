//! The command line's shape: every command, its one-line help and an example, and which
//! global option applies to which command.
//!
//! This module owns argument parsing only (clap derive; the value parsers are in
//! [`crate::args`]). Parsing failures exit 2 (spec §9 usage error); values with a closed
//! vocabulary are checked here, before any socket is opened. A global option given to a
//! command it does not apply to is refused ([`Command::accepts`]), never ignored.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};
use clap_complete::engine::ArgValueCandidates;
use devint::auth::ClientName;
use devint::verbs::{
    ApprovalId, Level, PlanArgs, PlanId, PolicyProfileId, Profile, SettingsScope, ToolId,
    UserInput, Verb,
};

use crate::args;
use crate::config::ConfigAction;
use crate::enrol::{EnrolArgs, TokensAction};
use crate::output::{ColorChoice, OutputMode};
use crate::profile::ProfileAction;
use crate::serve::ServeArgs;
use crate::service::ServiceAction;

const EXAMPLES: &str = "\
The journey:
  devint serve                                        # run the runtime (leave it running)
  devint enrol --client cli --all-tools --verbs full  # once, in another terminal
  devint status                                       # one line per tool: state and next step
  devint plan claude-code --scope user                # review what would change, and its plan id
  devint apply claude-code --plan PLAN_ID             # apply exactly the plan you reviewed
  devint verify claude-code                           # fresh evidence
  devint status claude-code                           # the ladder and its evidence
  devint repair claude-code                           # restore drifted settings of ours
  devint remove claude-code                           # shows what is restored, asks, removes
  devint demo                                         # all of the above in a sandbox

Exit codes: 0 ok, 1 internal, 2 usage, 3 unsupported, 4 incompatible, 5 drifted,
6 verification failed, 7 runtime not running, 8 denied, 9 aborted, 10 runtime refuted,
11 runtime unverifiable; 130/141/143 when Ctrl-C, a closed pipe or SIGTERM cut it short.
Every command: `devint help COMMAND`; the manual: `man devint` (`devint manpages DIR`).";

/// The command line's definition, with the build's commit in `--version`: what `main`
/// parses with, and what completion and the manual pages are generated from.
pub fn cli_command() -> clap::Command {
    // clap keeps a version as `&'static str` unless its `string` feature is on; one short
    // string per process is leaked instead.
    let version: &'static str = Box::leak(crate::version::short().into_boxed_str());
    Cli::command().version(version)
}

/// `devint`: install, inspect, verify, repair and remove the governance integration of AI
/// coding tools through a local DI-API runtime.
#[derive(Debug, Parser)]
#[command(
    name = "devint",
    version,
    about = "Install, inspect, verify, repair and remove the governance integration of AI coding tools",
    after_help = EXAMPLES, propagate_version = true)]
pub struct Cli {
    /// The runtime's socket (default: AA_DEVINT_SOCKET, else ~/.aa/run/devint.sock).
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_name = "PATH"
    )]
    pub socket: Option<PathBuf>,
    /// The runtime's state directory (default: AA_DEVINT_STATE_DIR, else ~/.aa). Read by
    /// serve, service, enrol, enroll, tokens, whoami and profile.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_name = "DIR"
    )]
    pub state_dir: Option<PathBuf>,
    /// Output format: text for people, or one JSON document (schema devint.cli.v1).
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_enum,
        default_value = "human",
        value_name = "FORMAT"
    )]
    pub output: OutputMode,
    /// When to colour: auto (a terminal, unless NO_COLOR; CLICOLOR_FORCE forces), always,
    /// never.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_enum,
        default_value = "auto",
        value_name = "WHEN"
    )]
    pub color: ColorChoice,
    /// More log detail on stderr (-v info, -vv debug, -vvv trace; RUST_LOG overrides).
    #[arg(short, long, global = true, help_heading = "Global options", action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,
    /// Only errors on stderr: no warnings, notes or progress.
    #[arg(short, long, global = true, help_heading = "Global options")]
    pub quiet: bool,
    /// Let apply, verify, repair and remove proceed on an unverifiable runtime (never a
    /// refuted one).
    #[arg(long, global = true, help_heading = "Global options")]
    pub allow_unverified_runtime: bool,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Every command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the runtime on the socket until SIGINT/SIGTERM.
    #[command(after_help = "Example:\n  devint serve --state-dir ~/.aa")]
    Serve(ServeArgs),
    /// Stop the runtime on the socket (SIGTERM to the pid it reports, once it is shown to be
    /// yours and this runtime).
    #[command(after_help = "Example:\n  devint stop")]
    Stop,
    /// Re-execute the runtime from the binary at its path, keeping the socket (SIGHUP).
    #[command(after_help = "Example:\n  devint restart")]
    Restart,
    /// Install, remove or inspect the service that runs `devint serve` (systemd user units
    /// with socket activation, or a launchd agent).
    #[command(
        after_help = "Examples:\n  devint service install --print\n  devint service install\n  devint service status"
    )]
    Service {
        /// What to do.
        #[command(subcommand)]
        action: ServiceAction,
    },
    /// Read or edit the runtime's configuration file (what `serve` takes as flags: the
    /// gateway URL, the plan lifetime, the log level…), read by every `devint serve`,
    /// including the service's.
    #[command(
        after_help = "Examples:\n  devint config set gateway_url https://gateway.example.com\n  devint config show\n\nFiles: ~/.config/devint/config.toml (XDG_CONFIG_HOME), over /etc/devint/config.toml; flags and environment variables override both."
    )]
    Config {
        /// What to do.
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Enrol a client: issue a capability token and write it to the client's own 0600 file.
    #[command(
        visible_alias = "enroll",
        after_help = "Example:\n  devint enrol --client vscode --tool claude-code --verbs read-only --ttl 30d"
    )]
    Enrol(EnrolArgs),
    /// List, rotate or revoke enrolled tokens.
    #[command(after_help = "Example:\n  devint tokens list")]
    Tokens {
        /// What to do.
        #[command(subcommand)]
        action: TokensAction,
    },
    /// Which token this command would use, its client, scope and expiry, and the runtime.
    #[command(after_help = "Example:\n  devint whoami")]
    Whoami(TokenChoice),
    /// List every tool the runtime knows, whether it is detected, and how far it can go.
    #[command(after_help = "Example:\n  devint tools --output json")]
    Tools(TokenChoice),
    /// Review what integrating TOOL at a scope would change (changes nothing); prints the
    /// plan id and the command that applies exactly this plan.
    #[command(after_help = "Example:\n  devint plan claude-code --scope user --profile strict")]
    Plan(PlanCommand),
    /// Apply a plan you reviewed (--plan ID), or plan, show, ask and apply (--scope).
    #[command(
        after_help = "Examples:\n  devint apply claude-code --plan 5f0c…e1a2     # the plan `devint plan` printed\n  devint apply claude-code --scope user --yes"
    )]
    Apply(ApplyCommand),
    /// One line per tool (no TOOL), or TOOL's ladder, evidence, drift and policy.
    #[command(after_help = "Examples:\n  devint status\n  devint status claude-code")]
    Status(StatusCommand),
    /// Gather fresh evidence that TOOL's integration works.
    #[command(after_help = "Example:\n  devint verify claude-code")]
    Verify(ToolCommand),
    /// Show what drifted, ask, then restore the settings of ours that changed.
    #[command(after_help = "Example:\n  devint repair claude-code --yes")]
    Repair(MutatingCommand),
    /// Show what removal restores and what remains, ask, then remove the integration.
    #[command(after_help = "Example:\n  devint remove claude-code --yes")]
    Remove(MutatingCommand),
    /// Recent (already redacted) verdict events for TOOL.
    #[command(after_help = "Example:\n  devint events claude-code --limit 20 --since 24h")]
    Events(EventsCommand),
    /// Relay your answer to a pending approval (the runtime decides, not devint).
    #[command(
        after_help = "Example:\n  devint approve claude-code 0123456789abcdef0123456789abcdef approve --yes"
    )]
    Approve(ApproveCommand),
    /// The policy profiles a plan can name, and the values each will write (trusted side).
    #[command(after_help = "Example:\n  devint profile show recommended")]
    Profile {
        /// What to show.
        #[command(subcommand)]
        action: ProfileAction,
    },
    /// This devint's build, the DI-API versions it speaks, and the runtime's when one
    /// answers.
    #[command(after_help = "Example:\n  devint version --output json")]
    Version,
    /// Walk the whole lifecycle in a sandbox (temporary HOME, socket and runtime).
    #[command(after_help = "Example:\n  devint demo")]
    Demo {
        /// Keep the sandbox directory afterwards and print its path.
        #[arg(long)]
        keep: bool,
    },
    /// Speak devint.sidecar.v1 (NDJSON JSON-RPC 2.0) on stdin/stdout, for hosts in any language.
    #[command(
        after_help = "Example:\n  devint sidecar --schema > devint.sidecar.v1.json\n\nSee docs/sidecar-protocol.md."
    )]
    Sidecar {
        /// Print the JSON Schema of every message and exit.
        #[arg(long)]
        schema: bool,
    },
    /// Print the shell script that enables completion (tool ids and every value).
    #[command(
        after_help = "Examples:\n  devint completions bash > ~/.local/share/bash-completion/completions/devint\n  devint completions zsh > ~/.zfunc/_devint\n  devint completions fish > ~/.config/fish/completions/devint.fish"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write the manual pages (devint.1 and one per command) into DIR.
    #[command(after_help = "Example:\n  devint manpages ~/.local/share/man/man1 && man devint")]
    Manpages {
        /// The directory to write them to (created if missing).
        dir: PathBuf,
    },
}

/// Which enrolled client's token a lifecycle command uses.
#[derive(Debug, Clone, Default, Args)]
pub struct TokenChoice {
    /// Use client NAME's token (NAME.token beside the socket) instead of the default
    /// (AA_DEVINT_TOKEN, else AA_DEVINT_TOKEN_FILE, else client cli's cli.token).
    #[arg(long, value_name = "NAME", value_parser = args::parsed(parse_client),
          add = ArgValueCandidates::new(crate::token::client_candidates))]
    pub client: Option<ClientName>,
}

fn parse_client(s: &str) -> Result<ClientName, String> {
    ClientName::parse(s).map_err(|e| e.to_string())
}

/// A tool id argument, completed from this build's adapters.
#[derive(Debug, Clone, Args)]
pub struct ToolCommand {
    /// The tool id (`devint tools` lists them).
    #[arg(value_parser = args::ToolArg, add = ArgValueCandidates::new(args::tool_candidates))]
    pub tool: ToolId,
    /// Which token to use.
    #[command(flatten)]
    pub token: TokenChoice,
}

/// A mutating command on one tool: asks unless `--yes`.
#[derive(Debug, Clone, Args)]
pub struct MutatingCommand {
    /// The tool id (`devint tools` lists them).
    #[arg(value_parser = args::ToolArg, add = ArgValueCandidates::new(args::tool_candidates))]
    pub tool: ToolId,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Which token to use.
    #[command(flatten)]
    pub token: TokenChoice,
}

/// `status [TOOL]`.
#[derive(Debug, Clone, Args)]
pub struct StatusCommand {
    /// The tool id (default: one line per detected tool, and per tool with something of
    /// devint's installed).
    #[arg(value_parser = args::ToolArg, add = ArgValueCandidates::new(args::tool_candidates))]
    pub tool: Option<ToolId>,
    /// Without TOOL: one line for every tool the runtime knows, detected or not.
    #[arg(long, conflicts_with = "tool")]
    pub all: bool,
    /// Which token to use.
    #[command(flatten)]
    pub token: TokenChoice,
}

/// What a plan asks for, beside its scope.
#[derive(Debug, Clone, Args)]
pub struct PlanShape {
    /// The integration profile.
    #[arg(long, value_parser = args::profile(), default_value = "recommended")]
    pub profile: Profile,
    /// The rung to aim for.
    #[arg(long, value_parser = args::level(), default_value = "gateway_protected")]
    pub level: Level,
    /// A policy profile id (`devint profile list`; default: the built-in of --profile).
    #[arg(long, value_name = "ID", value_parser = args::policy_id())]
    pub policy: Option<PolicyProfileId>,
    /// Allow privileged host steps in the plan (each still asks for its own consent).
    #[arg(long)]
    pub allow_privileged: bool,
}

impl PlanShape {
    /// The wire arguments for `scope`.
    pub fn args(&self, scope: SettingsScope) -> PlanArgs {
        PlanArgs {
            profile: self.profile,
            requested_level: self.level,
            scope,
            allow_privileged_host_steps: self.allow_privileged,
            policy_profile_id: self.policy.clone(),
        }
    }
}

/// `plan TOOL --scope S`.
#[derive(Debug, Clone, Args)]
pub struct PlanCommand {
    /// The tool id (`devint tools` lists them).
    #[arg(value_parser = args::ToolArg, add = ArgValueCandidates::new(args::tool_candidates))]
    pub tool: ToolId,
    /// The settings scope (mandatory; never inferred from the working directory).
    #[arg(long, value_parser = args::scope())]
    pub scope: SettingsScope,
    /// What the plan asks for.
    #[command(flatten)]
    pub shape: PlanShape,
    /// Which token to use.
    #[command(flatten)]
    pub token: TokenChoice,
}

/// `apply TOOL (--plan ID | --scope S …)`.
#[derive(Debug, Clone, Args)]
pub struct ApplyCommand {
    /// The tool id (`devint tools` lists them).
    #[arg(value_parser = args::ToolArg, add = ArgValueCandidates::new(args::tool_candidates))]
    pub tool: ToolId,
    /// Apply this plan, as `devint plan` showed it (made with the same token, not expired).
    #[arg(long, value_name = "ID", value_parser = args::plan_id(),
          conflicts_with_all = ["scope", "profile", "level", "policy", "allow_privileged"])]
    pub plan: Option<PlanId>,
    /// Plan at this settings scope first, show the plan and ask (mandatory without --plan;
    /// never inferred).
    #[arg(long, value_parser = args::scope(), required_unless_present = "plan")]
    pub scope: Option<SettingsScope>,
    /// What the plan asks for (without --plan).
    #[command(flatten)]
    pub shape: PlanShape,
    /// Do not ask for confirmation (required when stdin is not a terminal; privileged host
    /// steps still ask each, at a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Which token to use.
    #[command(flatten)]
    pub token: TokenChoice,
}

/// `events TOOL`.
#[derive(Debug, Clone, Args)]
pub struct EventsCommand {
    /// The tool id (`devint tools` lists them).
    #[arg(value_parser = args::ToolArg, add = ArgValueCandidates::new(args::tool_candidates))]
    pub tool: ToolId,
    /// At most this many events.
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
    /// Only events since T: unix seconds, an RFC 3339 time, or an age (90m, 24h, 7d).
    #[arg(long, value_name = "T", value_parser = args::since(), default_value = "0")]
    pub since: u64,
    /// Which token to use.
    #[command(flatten)]
    pub token: TokenChoice,
}

/// `approve TOOL ID INPUT`.
#[derive(Debug, Clone, Args)]
pub struct ApproveCommand {
    /// The tool id (`devint tools` lists them).
    #[arg(value_parser = args::ToolArg, add = ArgValueCandidates::new(args::tool_candidates))]
    pub tool: ToolId,
    /// The approval id, as the tool showed it.
    #[arg(value_name = "ID", value_parser = args::approval_id())]
    pub id: ApprovalId,
    /// Your answer.
    #[arg(value_parser = args::user_input())]
    pub input: UserInput,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Which token to use.
    #[command(flatten)]
    pub token: TokenChoice,
}

/// A global option whose use depends on the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalFlag {
    /// `--socket`.
    Socket,
    /// `--state-dir`.
    StateDir,
    /// `--output`.
    Output,
    /// `--allow-unverified-runtime`.
    AllowUnverifiedRuntime,
}

impl GlobalFlag {
    /// Every flag, with its clap id and spelling.
    pub const ALL: [(GlobalFlag, &'static str, &'static str); 4] = [
        (GlobalFlag::Socket, "socket", "--socket"),
        (GlobalFlag::StateDir, "state_dir", "--state-dir"),
        (GlobalFlag::Output, "output", "--output"),
        (
            GlobalFlag::AllowUnverifiedRuntime,
            "allow_unverified_runtime",
            "--allow-unverified-runtime",
        ),
    ];
}

/// What a command reads from the global options.
#[derive(Debug, Clone, Copy, Default)]
struct Uses {
    socket: bool,
    state_dir: bool,
    output: bool,
}

const NOTHING: Uses = Uses {
    socket: false,
    state_dir: false,
    output: false,
};
const CLIENT: Uses = Uses {
    socket: true,
    state_dir: false,
    output: true,
};
const BOOK: Uses = Uses {
    socket: false,
    state_dir: true,
    output: true,
};

impl Command {
    /// The command's name as it appears in JSON output and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Serve(_) => "serve",
            Command::Stop => "stop",
            Command::Restart => "restart",
            Command::Service { action } => action.name(),
            Command::Config { action } => action.name(),
            Command::Enrol(_) => "enrol",
            Command::Tokens { action } => action.name(),
            Command::Whoami(_) => "whoami",
            Command::Tools(_) => "tools",
            Command::Plan(_) => "plan",
            Command::Apply(_) => "apply",
            Command::Status(_) => "status",
            Command::Verify(_) => "verify",
            Command::Repair(_) => "repair",
            Command::Remove(_) => "remove",
            Command::Events(_) => "events",
            Command::Approve(_) => "approve",
            Command::Profile { action } => action.name(),
            Command::Version => "version",
            Command::Demo { .. } => "demo",
            Command::Sidecar { .. } => "sidecar",
            Command::Completions { .. } => "completions",
            Command::Manpages { .. } => "manpages",
        }
    }

    /// The token choice of a command that sends a token.
    pub fn token_choice(&self) -> Option<&TokenChoice> {
        match self {
            Command::Whoami(t) | Command::Tools(t) => Some(t),
            Command::Plan(c) => Some(&c.token),
            Command::Apply(c) => Some(&c.token),
            Command::Status(c) => Some(&c.token),
            Command::Verify(c) => Some(&c.token),
            Command::Repair(c) | Command::Remove(c) => Some(&c.token),
            Command::Events(c) => Some(&c.token),
            Command::Approve(c) => Some(&c.token),
            Command::Serve(_)
            | Command::Stop
            | Command::Restart
            | Command::Service { .. }
            | Command::Config { .. }
            | Command::Enrol(_)
            | Command::Tokens { .. }
            | Command::Profile { .. }
            | Command::Version
            | Command::Demo { .. }
            | Command::Sidecar { .. }
            | Command::Completions { .. }
            | Command::Manpages { .. } => None,
        }
    }

    /// The DI-API verb whose standing rule (spec §8) governs this command, if it is a
    /// lifecycle client.
    pub fn verb(&self) -> Option<Verb> {
        match self {
            Command::Tools(_) => Some(Verb::ListTools),
            Command::Plan(_) => Some(Verb::Plan),
            Command::Apply(_) => Some(Verb::Apply),
            Command::Status(_) => Some(Verb::Status),
            Command::Verify(_) => Some(Verb::Verify),
            Command::Repair(_) => Some(Verb::Repair),
            Command::Remove(_) => Some(Verb::Remove),
            Command::Events(_) => Some(Verb::ScopedEvents),
            Command::Approve(_) => Some(Verb::ApprovalRelay),
            Command::Serve(_)
            | Command::Stop
            | Command::Restart
            | Command::Service { .. }
            | Command::Config { .. }
            | Command::Enrol(_)
            | Command::Tokens { .. }
            | Command::Whoami(_)
            | Command::Profile { .. }
            | Command::Version
            | Command::Demo { .. }
            | Command::Sidecar { .. }
            | Command::Completions { .. }
            | Command::Manpages { .. } => None,
        }
    }

    fn uses(&self) -> Uses {
        match self {
            Command::Serve(_) => Uses {
                socket: true,
                state_dir: true,
                output: false,
            },
            Command::Stop | Command::Restart => CLIENT,
            Command::Enrol(_)
            | Command::Tokens { .. }
            | Command::Whoami(_)
            | Command::Service { .. } => Uses {
                socket: true,
                state_dir: true,
                output: true,
            },
            Command::Profile { .. } => BOOK,
            Command::Config { .. } => Uses {
                socket: false,
                state_dir: false,
                output: true,
            },
            Command::Version => CLIENT,
            Command::Tools(_)
            | Command::Plan(_)
            | Command::Apply(_)
            | Command::Status(_)
            | Command::Verify(_)
            | Command::Repair(_)
            | Command::Remove(_)
            | Command::Events(_)
            | Command::Approve(_) => CLIENT,
            Command::Demo { .. } | Command::Completions { .. } | Command::Manpages { .. } => {
                NOTHING
            }
            // The sidecar's sessions talk to a runtime; its output is the protocol.
            Command::Sidecar { .. } => Uses {
                socket: true,
                state_dir: false,
                output: false,
            },
        }
    }

    /// Whether `flag` means something to this command.
    pub fn accepts(&self, flag: GlobalFlag) -> bool {
        let uses = self.uses();
        match flag {
            GlobalFlag::Socket => uses.socket,
            GlobalFlag::StateDir => uses.state_dir,
            GlobalFlag::Output => uses.output,
            GlobalFlag::AllowUnverifiedRuntime => {
                self.verb().is_some_and(devint::verbs::Verb::is_privileged)
                    || matches!(self, Command::Sidecar { .. })
            }
        }
    }

    /// The commands that accept `flag`, for the refusal's message.
    pub fn accepting(flag: GlobalFlag) -> &'static str {
        match flag {
            GlobalFlag::Socket => {
                "commands that talk to a runtime, serve, service, enrol, tokens and whoami"
            }
            GlobalFlag::StateDir => "serve, service, enrol, tokens, whoami and profile",
            GlobalFlag::Output => "every command but serve, demo, completions and manpages",
            GlobalFlag::AllowUnverifiedRuntime => "apply, verify, repair, remove and sidecar",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn plan_requires_a_scope_and_apply_requires_a_scope_or_a_plan() {
        assert!(Cli::try_parse_from(["devint", "plan", "codex"]).is_err());
        assert!(Cli::try_parse_from(["devint", "plan", "codex", "--scope", "user"]).is_ok());
        assert!(Cli::try_parse_from(["devint", "apply", "codex"]).is_err());
        assert!(Cli::try_parse_from(["devint", "apply", "codex", "--scope", "user"]).is_ok());
        let plan = "0123456789abcdef0123456789abcdef";
        assert!(Cli::try_parse_from(["devint", "apply", "codex", "--plan", plan]).is_ok());
        assert!(Cli::try_parse_from([
            "devint", "apply", "codex", "--plan", plan, "--scope", "user"
        ])
        .is_err());
    }

    #[test]
    fn only_privileged_commands_take_the_unverified_override() {
        let cli = Cli::try_parse_from(["devint", "status"]).unwrap();
        assert!(!cli.command.accepts(GlobalFlag::AllowUnverifiedRuntime));
        let cli = Cli::try_parse_from(["devint", "repair", "codex"]).unwrap();
        assert!(cli.command.accepts(GlobalFlag::AllowUnverifiedRuntime));
        assert!(!cli.command.accepts(GlobalFlag::StateDir));
    }
}
