//! One descriptor per tool, and the build-time registry of them.
//!
//! Owns tool knowledge only, as `static` data with the public source and check date of
//! each capability. Must never contain behaviour: if a tool needs something the engine
//! cannot express, extend the engine's templates, not the descriptor.

use super::descriptor::ToolDescriptor;

mod aider;
mod amp;
mod auggie;
mod claude_code;
mod cline;
mod cline_cli;
mod codex;
mod continue_dev;
mod crush;
mod cursor;
mod factory_droid;
mod gemini_cli;
mod github_copilot;
mod github_copilot_cli;
mod goose;
mod grok_cli;
mod kilo_code_cli;
mod kiro;
mod mistral_vibe;
mod opencode;
mod pi;
mod qwen_code;
mod roo_code;
mod windsurf;
mod zed;

pub(crate) mod vscode;

/// The registry: every descriptor, in display order. Adding a tool adds one line here.
pub static ALL: &[&ToolDescriptor] = &[
    &claude_code::CLAUDE_CODE,
    &codex::CODEX,
    &github_copilot::GITHUB_COPILOT,
    &windsurf::WINDSURF_CASCADE,
    &gemini_cli::GEMINI_CLI,
    &qwen_code::QWEN_CODE,
    &cursor::CURSOR,
    &opencode::OPENCODE,
    &cline::CLINE,
    &roo_code::ROO_CODE,
    &continue_dev::CONTINUE,
    &aider::AIDER,
    &goose::GOOSE,
    &amp::AMP,
    &kiro::KIRO,
    &zed::ZED,
    &factory_droid::FACTORY_DROID,
    &pi::PI,
    &github_copilot_cli::GITHUB_COPILOT_CLI,
    &mistral_vibe::MISTRAL_VIBE,
    &kilo_code_cli::KILO_CODE_CLI,
    &auggie::AUGGIE,
    &crush::CRUSH,
    &grok_cli::GROK_CLI,
    &cline_cli::CLINE_CLI,
];
