//! placeholder
use crate::exit::{CliError, Exit};
use crate::output::Out;
/// Run the demo.
pub async fn run(_out: Out, _keep: bool) -> Result<Exit, CliError> {
    Ok(Exit::Ok)
}
