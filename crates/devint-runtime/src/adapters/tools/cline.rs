//! Cline: a VS Code extension whose own configuration lives in extension storage.

use super::vscode;
use crate::adapters::descriptor::*;

/// Cline.
pub static CLINE: ToolDescriptor = vscode::storage_extension(vscode::StorageExtension {
    id: "cline",
    display_name: "Cline",
    detection: Detection::extension(&[vscode::extension("saoudrizwan.claude-dev-")], ">=3.0.0"),
    doc: "https://docs.cline.bot/getting-started/installing-cline",
    mcp_doc: "https://docs.cline.bot/mcp/configuring-mcp-servers",
    no_gateway: "Cline keeps its provider base URL in extension state set through its UI, not in a settings file",
    no_hooks: "Cline hooks are executable scripts in a hooks directory, not settings keys devint can write",
    no_mcp: "Cline's MCP servers live in cline_mcp_settings.json in extension storage, disabled per server entry; there is no deny list",
    no_approval: "Cline's auto-approve choices are extension state set through its UI, not a settings file",
});
