//! The events the server raises to scripts (lua-api.md, "Events"). The host knows none of
//! them by name: each feature crate builds its events ([`ScriptEvent::new`]) from its own
//! messages, registers their names ([`ScriptApi::events`](crate::ScriptApi::events)) and
//! queues them ([`ScriptEvents`]); the host raises them in order.

use bevy_ecs::entity::Entity;
use bevy_ecs::resource::Resource;
use mlua::{Function, IntoLua, Lua, MultiValue, Result, Value};

/// A handle an event hands to its handlers: a small `Copy` value that becomes its Lua
/// handle only when a handler runs (a player, a vehicle, a pickup, ...).
pub trait EventHandle: Copy + IntoLua + 'static {
    /// The handle kind, telling two handles of equal bits apart.
    const KIND: &'static str;
    fn to_bits(self) -> [u64; 2];
    fn from_bits(bits: [u64; 2]) -> Self;
}

/// One argument of an event, in the order handlers receive them.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Nil,
    Bool(bool),
    Int(i64),
    Num(f64),
    /// A name from the server's own list ("quit", "on_foot", ...).
    Name(&'static str),
    Text(String),
    /// A Lua sequence of strings (a command's arguments).
    Texts(Vec<String>),
    /// A Lua table of counts by name (`{ movement = 3 }`).
    Counts(Vec<(&'static str, u32)>),
    /// A Lua table of numbers by name (an edited pose: `{ x = 1.5, y = 2, z = 3 }`).
    Numbers(Vec<(&'static str, f64)>),
    /// A Lua table of arguments by name, handles among them (a launch: `{ weapon = 20,
    /// vehicle = Vehicle, target = nil }`); a nil value leaves its key out.
    Record(Vec<(&'static str, Arg)>),
    Handle(Handle),
}

/// Makes the Lua value of a handle from its bits.
type Make = fn([u64; 2], &Lua) -> Result<Value>;

/// The makers of the handle kinds registered with [`ScriptApi::handle`](crate::ScriptApi::handle),
/// by kind: a crate below names a handle of a crate above by kind and id
/// ([`Handle::by_id`]), and the VM turns it into that crate's handle (ADR 0134).
#[derive(Debug, Default, Clone)]
pub(crate) struct HandleMakers(pub(crate) std::collections::HashMap<&'static str, Make>);

/// An [`EventHandle`] carried by an [`Arg`], converted when the handler runs.
#[derive(Clone, Copy)]
pub struct Handle {
    kind: &'static str,
    bits: [u64; 2],
    /// `None` for a handle named by kind ([`Handle::by_id`]): the maker registered under
    /// the kind makes it.
    make: Option<Make>,
}

impl Handle {
    /// The handle as `H`, if it is one.
    pub fn get<H: EventHandle>(&self) -> Option<H> {
        (self.kind == H::KIND).then(|| H::from_bits(self.bits))
    }

    /// The handle of kind `kind` to the entity numbered `id`, for a crate below the one
    /// that defines the handle (the player crate naming a vehicle): equal to the handle
    /// [`id_event_handle!`](crate::id_event_handle) makes of that id, and made into it by
    /// the maker its crate registered (ADR 0134).
    pub fn by_id(kind: &'static str, id: u32) -> Handle {
        Handle {
            kind,
            bits: id_bits(id),
            make: None,
        }
    }

    fn to_lua(self, lua: &Lua) -> Result<Value> {
        let make = match self.make {
            Some(make) => make,
            None => lua
                .app_data_ref::<HandleMakers>()
                .and_then(|makers| makers.0.get(self.kind).copied())
                .ok_or_else(|| {
                    mlua::Error::runtime(format!("no handle of kind {} is registered", self.kind))
                })?,
        };
        make(self.bits, lua)
    }
}

/// The bits of a handle to the entity numbered `id` ([`id_event_handle!`](crate::id_event_handle),
/// [`Handle::by_id`]).
pub fn id_bits(id: u32) -> [u64; 2] {
    [u64::from(id), 0]
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({:?})", self.kind, self.bits)
    }
}

impl PartialEq for Handle {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.bits == other.bits
    }
}

pub(crate) fn make<H: EventHandle>(bits: [u64; 2], lua: &Lua) -> Result<Value> {
    H::from_bits(bits).into_lua(lua)
}

impl<H: EventHandle> From<H> for Arg {
    fn from(h: H) -> Arg {
        Arg::Handle(Handle {
            kind: H::KIND,
            bits: h.to_bits(),
            make: Some(make::<H>),
        })
    }
}

impl From<Handle> for Arg {
    fn from(h: Handle) -> Arg {
        Arg::Handle(h)
    }
}

impl From<Option<Handle>> for Arg {
    fn from(h: Option<Handle>) -> Arg {
        h.map_or(Arg::Nil, Arg::Handle)
    }
}

impl<H: EventHandle> From<Option<H>> for Arg {
    fn from(h: Option<H>) -> Arg {
        h.map_or(Arg::Nil, Arg::from)
    }
}

impl From<bool> for Arg {
    fn from(v: bool) -> Arg {
        Arg::Bool(v)
    }
}

impl From<&'static str> for Arg {
    fn from(v: &'static str) -> Arg {
        Arg::Name(v)
    }
}

impl From<String> for Arg {
    fn from(v: String) -> Arg {
        Arg::Text(v)
    }
}

impl From<Vec<String>> for Arg {
    fn from(v: Vec<String>) -> Arg {
        Arg::Texts(v)
    }
}

impl From<f64> for Arg {
    fn from(v: f64) -> Arg {
        Arg::Num(v)
    }
}

impl From<Option<f64>> for Arg {
    fn from(v: Option<f64>) -> Arg {
        v.map_or(Arg::Nil, Arg::Num)
    }
}

macro_rules! integer_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(v: $t) -> Arg {
                Arg::Int(i64::from(v))
            }
        }
    )*};
}
integer_arg!(u8, u16, u32, i32);

impl IntoLua for &Arg {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(match self {
            Arg::Nil => Value::Nil,
            Arg::Bool(b) => Value::Boolean(*b),
            Arg::Int(n) => Value::Integer(*n),
            Arg::Num(n) => Value::Number(*n),
            Arg::Name(s) => s.into_lua(lua)?,
            Arg::Text(s) => s.as_str().into_lua(lua)?,
            Arg::Texts(list) => {
                Value::Table(lua.create_sequence_from(list.iter().map(String::as_str))?)
            }
            Arg::Counts(counts) => Value::Table(lua.create_table_from(counts.iter().copied())?),
            Arg::Numbers(numbers) => Value::Table(lua.create_table_from(numbers.iter().copied())?),
            Arg::Record(fields) => {
                let table = lua.create_table_with_capacity(0, fields.len())?;
                for (name, value) in fields {
                    table.raw_set(*name, value)?;
                }
                Value::Table(table)
            }
            Arg::Handle(h) => h.to_lua(lua)?,
        })
    }
}

/// An event for the scripts' handlers: its name (what `dlmp.on` registers) and its
/// arguments in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptEvent {
    name: &'static str,
    args: Vec<Arg>,
    /// The entity whose handle, data and views go once the handlers ran (a
    /// `player_disconnect`): kept while the event waits for a later tick (ADR 0082).
    releases: Option<Entity>,
    /// What must still hold when the event's turn comes, or it is not raised.
    guard: Option<EventGuard>,
}

/// A condition read in the scripts' view when an event's turn comes: an earlier handler
/// of the same pass (or of the ticks it waited) may have made the event moot, as a
/// collected pickup makes the next touch of it in that tick (world.md PickupTouch).
#[derive(Clone, Copy)]
pub struct EventGuard {
    /// Whether the event still stands, asked with `key`.
    pub holds: fn(&Lua, u64) -> bool,
    pub key: u64,
}

impl std::fmt::Debug for EventGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventGuard")
            .field("key", &self.key)
            .finish()
    }
}

impl PartialEq for EventGuard {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && std::ptr::fn_addr_eq(self.holds, other.holds)
    }
}

impl ScriptEvent {
    pub fn new(name: &'static str, args: impl IntoIterator<Item = Arg>) -> Self {
        ScriptEvent {
            name,
            args: args.into_iter().collect(),
            releases: None,
            guard: None,
        }
    }

    /// The event is raised only if `guard` still holds when its turn comes.
    #[must_use]
    pub fn guarded(mut self, guard: EventGuard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// Whether the event still stands in the scripts' view (no guard: always).
    pub(crate) fn stands(&self, lua: &Lua) -> bool {
        self.guard.is_none_or(|g| (g.holds)(lua, g.key))
    }

    /// The event lets `entity` go once its handlers ran: nothing of it is forgotten while
    /// the event waits.
    #[must_use]
    pub fn releasing(mut self, entity: Entity) -> Self {
        self.releases = Some(entity);
        self
    }

    /// The name handlers register with `dlmp.on`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn args(&self) -> &[Arg] {
        &self.args
    }

    /// The entity this event lets go, if any.
    pub fn releases(&self) -> Option<Entity> {
        self.releases
    }

    /// Calls `handler` with the event's arguments, in order.
    pub(crate) fn call(&self, lua: &Lua, handler: &Function) -> Result<Value> {
        let mut args = MultiValue::with_capacity(self.args.len());
        for a in &self.args {
            args.push_back(a.into_lua(lua)?);
        }
        handler.call(args)
    }
}

/// Where in a tick's notifications an event stands: the host raises the queued events
/// ordered by their place, and in the order they were queued within one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventPlace(pub u16);

/// The notifications of this tick, queued by the feature systems in
/// [`ScriptSystems::Collect`](crate::ScriptSystems::Collect) and raised by the host in
/// [`ScriptSystems::Notify`](crate::ScriptSystems::Notify).
#[derive(Resource, Debug, Default)]
pub struct ScriptEvents {
    queued: Vec<(EventPlace, ScriptEvent)>,
}

impl ScriptEvents {
    pub fn push(&mut self, place: EventPlace, event: ScriptEvent) {
        self.queued.push((place, event));
    }

    pub fn extend(&mut self, place: EventPlace, events: impl IntoIterator<Item = ScriptEvent>) {
        self.queued.extend(events.into_iter().map(|e| (place, e)));
    }

    /// The queued events in their order; the queue keeps its room.
    pub(crate) fn take_sorted(&mut self) -> impl Iterator<Item = ScriptEvent> + '_ {
        self.queued.sort_by_key(|(place, _)| *place);
        self.queued.drain(..).map(|(_, e)| e)
    }
}

/// What the handlers of one event decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcome {
    /// A handler returned false (refusable events).
    pub refused: bool,
    /// A handler returned true (commands).
    pub handled: bool,
    /// A handler failed (a Lua error) or was suspended for failing.
    pub failed: bool,
    /// Handlers that ran.
    pub handlers: usize,
}

/// The events of the host itself.
pub mod host_events {
    use super::{Arg, ScriptEvent};

    /// A resource started (sent to every resource, the new one included).
    pub fn resource_start(name: &str) -> ScriptEvent {
        ScriptEvent::new("resource_start", [Arg::Text(name.to_owned())])
    }

    /// A resource is stopping (sent before its handlers are removed).
    pub fn resource_stop(name: &str) -> ScriptEvent {
        ScriptEvent::new("resource_stop", [Arg::Text(name.to_owned())])
    }

    /// The server is shutting down.
    pub fn server_shutdown() -> ScriptEvent {
        ScriptEvent::new("server_shutdown", [])
    }

    /// Once per server tick, for handlers that asked for it.
    pub fn tick(dt_ms: f64) -> ScriptEvent {
        ScriptEvent::new("tick", [Arg::Num(dt_ms)])
    }

    /// The names of these events.
    pub const NAMES: &[&str] = &["resource_start", "resource_stop", "server_shutdown", "tick"];
}

/// Makes a handle of the form `struct LuaThing { pub id: ThingId }` (a `u32` id newtype,
/// a `UserData`) an [`EventHandle`] named `kind`.
#[macro_export]
macro_rules! id_event_handle {
    ($handle:ident, $kind:expr, $id:ident) => {
        impl $crate::EventHandle for $handle {
            const KIND: &'static str = $kind;
            fn to_bits(self) -> [u64; 2] {
                $crate::events::id_bits(self.id.0)
            }
            fn from_bits(bits: [u64; 2]) -> Self {
                $handle {
                    id: $id(u32::try_from(bits[0]).unwrap_or(u32::MAX)),
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Thing(u32);

    impl mlua::UserData for Thing {
        fn add_methods<M: mlua::UserDataMethods<Self>>(methods: &mut M) {
            methods.add_method("id", |_, this, ()| Ok(this.0));
        }
    }

    impl EventHandle for Thing {
        const KIND: &'static str = "Thing";
        fn to_bits(self) -> [u64; 2] {
            id_bits(self.0)
        }
        fn from_bits(bits: [u64; 2]) -> Self {
            Thing(u32::try_from(bits[0]).unwrap_or(u32::MAX))
        }
    }

    fn record() -> Arg {
        Arg::Record(vec![
            ("weapon", 20u8.into()),
            ("x", 1.5.into()),
            ("vehicle", Handle::by_id("Thing", 7).into()),
            ("target", Option::<Handle>::None.into()),
        ])
    }

    #[test]
    fn a_record_is_a_table_and_a_handle_named_by_kind_is_made_by_its_registered_maker() {
        let lua = Lua::new();
        let mut api = crate::ScriptApi::default();
        api.handle::<Thing>();
        api.register_types(&lua).expect("registered");
        let Arg::Record(fields) = record() else {
            unreachable!()
        };
        let Arg::Handle(h) = &fields[2].1 else {
            panic!("a handle");
        };
        assert_eq!(
            h.get::<Thing>(),
            Some(Thing(7)),
            "equal to the typed handle"
        );
        assert_eq!(Arg::Handle(*h), Arg::from(Thing(7)));
        let f: Function = lua
            .load("return function(t) return t.weapon, t.x, t.vehicle:id(), t.target == nil end")
            .eval()
            .expect("a function");
        let table = (&record()).into_lua(&lua).expect("a table");
        let got: (i64, f64, u32, bool) = f.call(table).expect("the fields");
        assert_eq!(got, (20, 1.5, 7, true));
    }

    #[test]
    fn a_handle_of_a_kind_nobody_registered_is_a_lua_error() {
        let lua = Lua::new();
        assert!((&record()).into_lua(&lua).is_err());
    }
}
