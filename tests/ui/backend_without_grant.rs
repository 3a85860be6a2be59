// A backend method needs an Authorization, which only the session mints after the
// spec §6 checks; it cannot be built here, not even from a Grant.
use devint::auth::Grant;
use devint::backend::Lifecycle;
use devint::backend::Authorization;
use devint::time::UnixSecs;
use devint::version::ApiVersion;

pub fn call(backend: &dyn Lifecycle, grant: Grant) {
    let auth = Authorization {
        grant,
        request_id: 1,
        version: ApiVersion::new(5),
        now: UnixSecs::EPOCH,
    };
    let _ = backend.list_tools(&auth);
}

fn main() {}
