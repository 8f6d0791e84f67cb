//! `Timer` handles (`dlmp.set_timer`): `timer:stop()`, `timer:exists()`.

use mlua::{UserData, UserDataMethods};

use super::super::state::ScriptState;

/// A Lua handle to a timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaTimer {
    pub id: u64,
}

impl UserData for LuaTimer {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("stop", |lua, this, ()| {
            super::state_mut(lua)?.timers.retain(|t| t.id != this.id);
            Ok(())
        });
        methods.add_method("exists", |lua, this, ()| {
            Ok(lua
                .app_data_ref::<ScriptState>()
                .is_some_and(|s| s.timers.iter().any(|t| t.id == this.id)))
        });
    }
}
