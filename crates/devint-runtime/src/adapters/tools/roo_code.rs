//! Roo Code: a VS Code extension (a Cline fork) whose configuration lives in extension storage.

use super::vscode;
use crate::adapters::descriptor::*;

/// Roo Code.
pub static ROO_CODE: ToolDescriptor = vscode::storage_extension(vscode::StorageExtension {
    id: "roo-code",
    display_name: "Roo Code",
    detection: Detection::extension(&[vscode::extension("rooveterinaryinc.roo-cline-")], ">=3.0.0"),
    doc: "https://docs.roocode.com/",
    mcp_doc: "https://docs.roocode.com/features/mcp/using-mcp-in-roo",
    no_gateway: "Roo Code keeps its provider base URL in extension state set through its UI, not in a settings file",
    no_hooks: "Roo Code has no command hooks before tool actions",
    no_mcp: "Roo Code's MCP servers live in mcp_settings.json and .roo/mcp.json, disabled per server entry; there is no deny list",
    no_approval: "Roo Code's auto-approve choices are extension state set through its UI, not a settings file",
});
