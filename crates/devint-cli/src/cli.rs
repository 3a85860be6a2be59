//! The command line's shape: every command, its one-line help and an example.
//!
//! This module owns argument parsing only (clap derive). Parsing failures exit 2 (spec §9
//! usage error); values with a closed vocabulary are checked here, before any socket is
//! opened.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use devint::time::UnixSecs;
use devint::verbs::{ApprovalId, ToolId, UserInput};

use crate::enrol::{EnrolArgs, TokensAction};
use crate::events::{parse_approval, parse_input, parse_since};
use crate::output::OutputMode;
use crate::plan::{parse_tool, PlanOptions};
use crate::serve::ServeArgs;

const EXAMPLES: &str = "\
The journey:
  devint serve                                        # run the runtime (leave it running)
  devint enrol --client cli --all-tools --verbs full  # once, in another terminal
  devint tools                                        # what is installed, what each adapter can do
  devint plan claude-code --scope user                # dry run: what would change
  devint apply claude-code --scope user               # shows the plan, asks, applies
  devint status claude-code                           # the ladder and its evidence
  devint verify claude-code                           # fresh evidence
  devint repair claude-code                           # restore drifted keys of ours
  devint remove claude-code                           # shows what is restored, asks, removes
  devint demo                                         # all of the above in a sandbox

Exit codes: 0 ok, 1 internal, 2 usage, 3 unsupported, 4 incompatible, 5 drifted,
6 verification failed, 7 runtime not running, 8 denied, 9 aborted, 10 runtime refuted,
11 runtime unverifiable. See docs/cli.md.";

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
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// The runtime's state directory (default: AA_DEVINT_STATE_DIR, else ~/.aa).
    #[arg(long, global = true, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value = "human")]
    pub output: OutputMode,
    /// Let privileged commands proceed on an unverifiable runtime (never a refuted one).
    #[arg(long, global = true)]
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
    /// Enrol a client: issue a capability token and write it to a 0600 file.
    #[command(
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
    /// List every tool the runtime knows, whether it is detected, and its adapter ceiling.
    #[command(after_help = "Example:\n  devint tools --output json")]
    Tools,
    /// Dry run: what integrating TOOL at a scope would change (changes nothing).
    #[command(after_help = "Example:\n  devint plan claude-code --scope user --profile strict")]
    Plan {
        /// The tool id.
        #[arg(value_parser = parse_tool)]
        tool: ToolId,
        /// Plan options.
        #[command(flatten)]
        options: PlanOptions,
    },
    /// Plan, show the plan, ask, then apply it.
    #[command(after_help = "Example:\n  devint apply claude-code --scope user --yes")]
    Apply {
        /// The tool id.
        #[arg(value_parser = parse_tool)]
        tool: ToolId,
        /// Plan options.
        #[command(flatten)]
        options: ApplyOptions,
        /// Skip the confirmation (privileged host steps still ask each).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// The protection state of TOOL (or of every detected tool): the ladder and its evidence.
    #[command(after_help = "Example:\n  devint status claude-code")]
    Status {
        /// The tool id (default: every detected tool).
        #[arg(value_parser = parse_tool)]
        tool: Option<ToolId>,
    },
    /// Gather fresh evidence that TOOL's integration works.
    #[command(after_help = "Example:\n  devint verify claude-code")]
    Verify {
        /// The tool id.
        #[arg(value_parser = parse_tool)]
        tool: ToolId,
    },
    /// Restore the keys and artifacts of ours that drifted.
    #[command(after_help = "Example:\n  devint repair claude-code")]
    Repair {
        /// The tool id.
        #[arg(value_parser = parse_tool)]
        tool: ToolId,
    },
    /// Show what removal restores and what remains, ask, then remove the integration.
    #[command(after_help = "Example:\n  devint remove claude-code --yes")]
    Remove {
        /// The tool id.
        #[arg(value_parser = parse_tool)]
        tool: ToolId,
        /// Skip the confirmation.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Recent (already redacted) verdict events for TOOL.
    #[command(after_help = "Example:\n  devint events claude-code --limit 20 --since 24h")]
    Events {
        /// The tool id.
        #[arg(value_parser = parse_tool)]
        tool: ToolId,
        /// At most this many events.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Only events since T (unix seconds, or an age: 90m, 24h, 7d).
        #[arg(long, value_parser = parse_since, default_value = "0")]
        since: UnixSecs,
    },
    /// Relay your answer to a pending approval (the runtime decides).
    #[command(
        after_help = "Example:\n  devint approve claude-code 0123456789abcdef0123456789abcdef approve"
    )]
    Approve {
        /// The tool id.
        #[arg(value_parser = parse_tool)]
        tool: ToolId,
        /// The approval id.
        #[arg(value_parser = parse_approval)]
        id: ApprovalId,
        /// approve, deny or defer.
        #[arg(value_parser = parse_input)]
        input: UserInput,
    },
    /// Walk the whole lifecycle in a sandbox (temporary HOME, socket and runtime).
    #[command(after_help = "Example:\n  devint demo")]
    Demo {
        /// Keep the sandbox directory afterwards and print its path.
        #[arg(long)]
        keep: bool,
    },
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  devint completions bash > ~/.local/share/bash-completion/completions/devint"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `apply`'s plan options: as `plan`'s, but the scope defaults to `user`.
#[derive(Debug, Clone, clap::Args)]
pub struct ApplyOptions {
    /// The settings scope to integrate at.
    #[arg(long, value_parser = crate::plan::parse_scope, default_value = "user")]
    pub scope: devint::verbs::SettingsScope,
    /// The integration profile.
    #[arg(long, value_parser = crate::plan::parse_profile, default_value = "recommended")]
    pub profile: devint::verbs::Profile,
    /// The rung to aim for (default gateway_protected).
    #[arg(long, value_parser = crate::plan::parse_level)]
    pub level: Option<devint::verbs::Level>,
    /// A policy profile id to reference.
    #[arg(long, value_parser = crate::plan::parse_policy)]
    pub policy: Option<devint::verbs::PolicyProfileId>,
    /// Allow privileged host steps in the plan (each still asks for its own consent).
    #[arg(long)]
    pub allow_privileged: bool,
}

impl From<ApplyOptions> for PlanOptions {
    fn from(a: ApplyOptions) -> PlanOptions {
        PlanOptions {
            scope: a.scope,
            profile: a.profile,
            level: a.level,
            policy: a.policy,
            allow_privileged: a.allow_privileged,
        }
    }
}
