//! How a feature crate adds itself to the Lua API (docs/architecture.md, "The script
//! registry"). The host knows only the core of `dlmp` (handlers, timers, exports, custom
//! events, `dlmp.fetch`); the players, the world, the vehicles and operations add their
//! functions, the methods of their handles, their event names and their views here, in
//! their plugin's `build`. [`ScriptPlugin`](crate::ScriptPlugin) makes the VM with all of
//! it once every plugin was built.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::entity::Entity;
use bevy_ecs::resource::Resource;
use bevy_ecs::world::World;
use mlua::{Lua, Result, Table, UserDataRegistry};

use crate::events::{EventHandle, HandleMakers, make};
use crate::state::ResourceId;

/// The resource a `dlmp` table is built for.
#[derive(Debug, Clone, Copy)]
pub struct ResourceContext<'a> {
    pub id: ResourceId,
    pub name: &'a str,
}

type Install = Arc<dyn Fn(&Lua, &Table, ResourceContext) -> Result<()> + Send + Sync>;
type Register = fn(&Lua, &dyn Any) -> Result<()>;
type Setup = Box<dyn FnOnce(&Lua, &mut World) + Send + Sync>;
type Forget = Arc<dyn Fn(&Lua, Entity) + Send + Sync>;

/// The methods of one handle type, from every crate that adds some.
struct Methods {
    adders: Box<dyn Any + Send + Sync>,
    register: Register,
}

/// Everything the feature crates add to the Lua API.
#[derive(Resource, Default)]
pub struct ScriptApi {
    installs: Vec<Install>,
    methods: HashMap<TypeId, Methods>,
    events: Vec<&'static str>,
    setups: Vec<Setup>,
    forgets: Vec<Forget>,
    makers: HandleMakers,
}

impl std::fmt::Debug for ScriptApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptApi")
            .field("installs", &self.installs.len())
            .field("handle_types", &self.methods.len())
            .field("events", &self.events)
            .finish()
    }
}

fn register<T: 'static>(lua: &Lua, adders: &dyn Any) -> Result<()> {
    let Some(adders) = adders.downcast_ref::<Vec<fn(&mut UserDataRegistry<T>)>>() else {
        return Ok(());
    };
    lua.register_userdata_type::<T>(|registry| {
        for add in adders {
            add(registry);
        }
    })
}

impl ScriptApi {
    /// Adds functions to the `dlmp` table of every resource; `install` runs once per
    /// resource start, with the resource it builds the table for.
    pub fn functions(
        &mut self,
        install: impl Fn(&Lua, &Table, ResourceContext) -> Result<()> + Send + Sync + 'static,
    ) -> &mut Self {
        self.installs.push(Arc::new(install));
        self
    }

    /// Adds methods to the handle type `T`. A type several crates add methods to (the
    /// player's handle) is registered here, never as `UserData`, and made with
    /// `Lua::create_any_userdata`.
    pub fn methods<T: 'static>(&mut self, add: fn(&mut UserDataRegistry<T>)) -> &mut Self {
        let methods = self
            .methods
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Methods {
                adders: Box::new(Vec::<fn(&mut UserDataRegistry<T>)>::new()),
                register: register::<T>,
            });
        if let Some(list) = methods
            .adders
            .downcast_mut::<Vec<fn(&mut UserDataRegistry<T>)>>()
        {
            list.push(add);
        }
        self
    }

    /// Lets a crate below name a handle of `H` by its kind and id
    /// ([`Handle::by_id`](crate::events::Handle::by_id)): the VM makes it into an `H`
    /// (ADR 0134).
    pub fn handle<H: EventHandle>(&mut self) -> &mut Self {
        self.makers.0.insert(H::KIND, make::<H>);
        self
    }

    /// Names events the crate raises, so that `dlmp.on` takes them (and refuses a typo
    /// of one, naming the nearest).
    pub fn events(&mut self, names: &[&'static str]) -> &mut Self {
        self.events.extend_from_slice(names);
        self
    }

    /// Runs `setup` once the VM exists, with the app's world: a crate puts its view of
    /// the world or its worker's client into the Lua app data here.
    pub fn setup(
        &mut self,
        setup: impl FnOnce(&Lua, &mut World) + Send + Sync + 'static,
    ) -> &mut Self {
        self.setups.push(Box::new(setup));
        self
    }

    /// Runs `forget` when the host lets an entity go (a departed player after its
    /// `player_disconnect`, a despawned item): a crate drops its view of it.
    pub fn on_forget(
        &mut self,
        forget: impl Fn(&Lua, Entity) + Send + Sync + 'static,
    ) -> &mut Self {
        self.forgets.push(Arc::new(forget));
        self
    }

    /// Every event name registered.
    pub fn event_names(&self) -> &[&'static str] {
        &self.events
    }

    /// Registers every handle type's methods with `lua`.
    pub(crate) fn register_types(&self, lua: &Lua) -> Result<()> {
        lua.set_app_data(self.makers.clone());
        for methods in self.methods.values() {
            (methods.register)(lua, methods.adders.as_ref())?;
        }
        Ok(())
    }

    pub(crate) fn install(&self, lua: &Lua, dlmp: &Table, resource: ResourceContext) -> Result<()> {
        for install in &self.installs {
            install(lua, dlmp, resource)?;
        }
        Ok(())
    }

    /// The setups, taken out to run once the VM exists.
    pub fn take_setups(&mut self) -> Vec<Setup> {
        std::mem::take(&mut self.setups)
    }

    pub(crate) fn forget(&self, lua: &Lua, entity: Entity) {
        for forget in &self.forgets {
            forget(lua, entity);
        }
    }
}
