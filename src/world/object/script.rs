//! The object API (lua-api.md, objects).
pub(super) fn refresh_view() {}
