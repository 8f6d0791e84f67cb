-- freeroam: the default gamemode, and the example to copy (docs/lua-api.md).
--
-- Every connecting player is spawned at one of a few points, greeted, and announced to the
-- others; after a death it respawns at the next point. Chat commands: /help lists them all.
-- A refused API call is told to the player as its first line ("set_skin: model 74 is not an
-- allowed skin ..."). /v MODEL spawns a vehicle 3 m beside the player (at most 3 of /v and
-- /rc at once, removed when the player leaves); /fix, /flip, /lock,
-- /color, /nos, /tow and /vrespawn work on the one you sit in or drive; /train puts you in a
-- train at a station; /rc [MODEL] gives you an RC vehicle driven remotely. /register and
-- /login PASSWORD keep an account per player name (money, skin, last position) in the
-- server's database across reconnects: see "Accounts" at the end. /weapon gives the
-- projectile weapons by name; /demolition takes you to a row of parked cars to blow up, and a
-- kill feed tells the players nearby who blew up a vehicle and who killed whom.

-- Chat colors (0xRRGGBB).
local INFO = 0x9CC4E4
local JOIN = 0x7FD17F
local ERROR = 0xE48A8A

-- Spawn points: x, y, z and heading in degrees. Players get them in turn (round-robin), at
-- the connect spawn and after every death.
local SPAWNS = {
    { name = "Grove Street", x = 2495.33, y = -1687.82, z = 13.52, heading = 0 },
    { name = "Pershing Square", x = 1481.02, y = -1741.58, z = 13.55, heading = 180 },
    { name = "Santa Maria Beach", x = 369.85, y = -2047.86, z = 7.67, heading = 90 },
    { name = "Doherty", x = -2026.16, y = 156.72, z = 29.04, heading = 270 },
    { name = "The Strip", x = 2027.48, y = 1008.21, z = 10.82, heading = 270 },
}
local next_spawn = 1

-- The stunt park north of Santa Maria Beach: ramps, barriers and benches, three pickups and
-- a few vehicles, in the element XML map editors write (docs/lua-api.md, "Maps"). What the
-- map creates belongs to this resource and goes when it stops; load_map returns the
-- handles. The vehicles carry the map's plates.
local PARK = dlmp.load_map("maps/santa_maria_stunts.map")

-- What each of the park's pickups gives, by model; the pickup comes back after the
-- respawn time the map gives it.
local PARK_GRANTS = {
    [1240] = function(player) player:set_health(100) end, -- health
    [1242] = function(player) player:set_armor(100) end, -- armour
    [365] = function(player) player:give_weapon(41, 500) end, -- spray can
}
-- The list holds the park's objects, then its pickups, then its vehicles; a pickup is the
-- handle with `is_active`.
local park_pickups = {}
for _, handle in ipairs(PARK) do
    if handle.is_active then
        park_pickups[handle:id()] = true
    end
end

dlmp.on("pickup_interact", function(player, pickup, behavior, model)
    local grant = PARK_GRANTS[model]
    if park_pickups[pickup:id()] and grant and behavior == "collectible" then
        grant(player)
        dlmp.collect_pickup(pickup)
    end
end)

-- The next point of SPAWNS, in turn.
local function take_point()
    local point = SPAWNS[next_spawn]
    next_spawn = next_spawn % #SPAWNS + 1
    return point
end

local function tell(player, text, color)
    dlmp.send_chat(text, color or INFO, { player })
end

-- Everyone but `player`.
local function others(player)
    local list = {}
    for _, p in ipairs(dlmp.players()) do
        if p ~= player then
            list[#list + 1] = p
        end
    end
    return list
end

-- The first line of an error raised by an API call (drops the traceback and the
-- "runtime error: " prefix).
local function first_line(err)
    return (tostring(err):match("^[^\n]*"):gsub("^runtime error: ", ""))
end

-- Calls an API function; on an error, tells the player why instead of failing the handler.
local function try(player, fn, ...)
    local ok, err = pcall(fn, ...)
    if not ok then
        tell(player, first_line(err), ERROR)
    end
    return ok
end

-- `word` as a number, or nil if it is not a finite number.
local function number(word)
    local n = tonumber(word)
    if n and n == n and n ~= math.huge and n ~= -math.huge then
        return n
    end
end

-- `word` as a whole number in lo..hi, or nil.
local function whole(word, lo, hi)
    local n = number(word)
    if n and n == math.floor(n) and n >= lo and n <= hi then
        return math.tointeger(n)
    end
end

local function set_spawn(player)
    local point = take_point()
    dlmp.spawn_player(player, point.x, point.y, point.z, point.heading)
end

dlmp.on("player_connect", function(player)
    set_spawn(player)
    tell(player, "Welcome to freeroam, " .. player:name() .. "! Type /help for the commands.")
    dlmp.send_chat(player:name() .. " joined the server.", JOIN, others(player))
end)

-- Started (or restarted) after players joined: the server raises no player_connect
-- for them again, so take the players already there.
for _, player in ipairs(dlmp.players()) do
    if not player:is_spawned() then set_spawn(player) end
end

dlmp.on("player_disconnect", function(player, reason)
    -- reason is "quit", "timeout" or "kicked"; the player is no longer in dlmp.players().
    local why = { quit = "left", timeout = "timed out", kicked = "was kicked" }
    dlmp.send_chat(player:name() .. " " .. (why[reason] or "left") .. ".", JOIN, dlmp.players())
end)

-- The player respawns at the next point (the server grants it 3 s after the death, when the
-- player's game asks).
dlmp.on("player_death", function(player, killer)
    local point = take_point()
    player:set_respawn_point(point.x, point.y, point.z, point.heading)
    if killer then
        tell(player, "You were killed by " .. killer:name() .. ". Respawning at " .. point.name .. ".")
    else
        tell(player, "You died. Respawning at " .. point.name .. ".")
    end
end)

-- The commands: name -> { usage, help, run(player, args), available() }, and their names
-- in the order /help lists them; /help leaves out those whose `available` says no.
local commands = {}
local order = {}

local function command(name, def)
    commands[name] = def
    order[#order + 1] = name
end

command("help", {
    usage = "/help",
    help = "this list",
    run = function(player)
        tell(player, "Commands:")
        for _, name in ipairs(order) do
            local def = commands[name]
            if not def.available or def.available() then
                tell(player, def.usage .. " - " .. def.help)
            end
        end
        return true
    end,
})

command("tp", {
    usage = "/tp x y z",
    help = "teleport to a position",
    run = function(player, args)
        local x, y, z = number(args[1]), number(args[2]), number(args[3])
        if #args ~= 3 or not (x and y and z) then
            return false
        end
        -- The world the protocol allows: |x|, |y| <= 6000, z in -200..4000.
        if math.abs(x) > 6000 or math.abs(y) > 6000 or z < -200 or z > 4000 then
            tell(player, "That is outside the world (|x|, |y| <= 6000, z -200..4000).", ERROR)
            return true
        end
        if try(player, player.set_position, player, x, y, z) then
            tell(player, string.format("Teleported to %.1f, %.1f, %.1f.", x, y, z))
        end
        return true
    end,
})

-- The vehicles a player made with /v and /rc, oldest first. A player has at most
-- MAX_OWN_VEHICLES at once: the next one removes the oldest (with a line saying so), and
-- they all go when the player leaves, so an empty server has no vehicles left behind.
local MAX_OWN_VEHICLES = 3
local own_vehicles = {} -- player id -> list of Vehicle

-- Spawns `model` 3 m beside the player as one of its own, or tells why not.
local function own_vehicle(player, model)
    local x, y, z = player:position()
    local ok, vehicle = pcall(dlmp.create_vehicle, model, x + 3, y, z, 0)
    if not ok then
        tell(player, first_line(vehicle), ERROR)
        return nil
    end
    local list = {}
    for _, v in ipairs(own_vehicles[player:id()] or {}) do
        if v:exists() then
            list[#list + 1] = v
        end
    end
    list[#list + 1] = vehicle
    while #list > MAX_OWN_VEHICLES do
        local oldest = table.remove(list, 1)
        tell(player, "Your oldest vehicle (" .. oldest:id() .. ") is removed: you have at most "
            .. MAX_OWN_VEHICLES .. " at once.")
        oldest:destroy()
    end
    own_vehicles[player:id()] = list
    return vehicle
end

dlmp.on("player_disconnect", function(player)
    local list = own_vehicles[player:id()] or {}
    own_vehicles[player:id()] = nil
    for _, v in ipairs(list) do
        if v:exists() then
            v:destroy()
        end
    end
end)

command("v", {
    usage = "/v model|name",
    help = "a vehicle next to you (model 400..611 or its name, e.g. infernus)",
    run = function(player, args)
        local model = whole(args[1], 400, 611) or dlmp.vehicle_model(table.concat(args, " "))
        if #args < 1 or not model then
            return false
        end
        if own_vehicle(player, model) then
            tell(player, "Here is your vehicle " .. model .. ".")
        end
        return true
    end,
})

-- /rc: an RC vehicle next to you, driven remotely (vehicles.md VehicleRemote). The grant
-- follows the RC's show to the player in the next ticks. F leaves it; F near it takes it
-- again.
local RC_MODELS = { [441] = true, [464] = true, [465] = true, [501] = true, [564] = true, [594] = true }

command("rc", {
    usage = "/rc [model]",
    help = "drive an RC vehicle (441 Bandit unless given: 464, 465, 501, 564, 594)",
    run = function(player, args)
        local model = args[1] and whole(args[1], 400, 611) or 441
        if #args > 1 or not RC_MODELS[model] then
            return false
        end
        local rc = own_vehicle(player, model)
        if not rc then
            return true
        end
        if try(player, dlmp.set_remote_vehicle, player, rc, model == 441) then
            tell(player, "You drive RC " .. model .. ". F leaves it, F near it takes it again.")
        end
        return true
    end,
})

dlmp.on("player_remote_exit", function(player, vehicle, how)
    if how == "range" then
        tell(player, "The RC is out of range.", ERROR)
    end
end)

-- /weapon: the projectile weapons by name (weapons.md: thrown grenades, teargas, molotovs and
-- satchel charges, the rocket and heat-seeking launchers), or any weapon by id as /w. A
-- satchel's detonator comes with the first satchel thrown.
local PROJECTILE_WEAPONS = {
    grenade = { id = 16, ammo = 10 },
    teargas = { id = 17, ammo = 10 },
    molotov = { id = 18, ammo = 10 },
    rocket = { id = 35, ammo = 10 },
    heatseeker = { id = 36, ammo = 10 },
    satchel = { id = 39, ammo = 5 },
}

-- The run of `/w` (a weapon by id) and of `/weapon` (`by_name`: a projectile weapon by name
-- too).
local function weapon_giver(by_name)
    return function(player, args)
        local named = by_name and PROJECTILE_WEAPONS[args[1] or ""]
        local weapon = named and named.id or whole(args[1], 1, 46)
        local ammo = named and named.ammo or 500
        if args[2] then
            ammo = whole(args[2], 1, 65535)
        end
        if #args < 1 or #args > 2 or not weapon or not ammo then
            return false
        end
        if try(player, player.give_weapon, player, weapon, ammo) then
            tell(player, "Weapon " .. (named and args[1] or weapon) .. " with " .. ammo .. " ammo.")
        end
        return true
    end
end

command("w", {
    usage = "/w weapon [ammo]",
    help = "a weapon (1..46), 500 ammo unless given",
    run = weapon_giver(false),
})

command("weapon", {
    usage = "/weapon grenade|teargas|molotov|rocket|heatseeker|satchel|ID [ammo]",
    help = "a projectile weapon by name (satchels bring their detonator), or any weapon by id",
    run = weapon_giver(true),
})

command("skin", {
    usage = "/skin id [variant]",
    help = "change your look (model 0..311 except 74)",
    run = function(player, args)
        local model = whole(args[1], 0, 0xFFFFFFFF)
        local variant = 1
        if args[2] then
            variant = whole(args[2], 1, 65535)
        end
        if #args < 1 or #args > 2 or not model or not variant then
            return false
        end
        -- The server checks the model against its skin catalog; a refused one tells why.
        if try(player, player.set_skin, player, model, variant) then
            tell(player, "Skin " .. model .. (variant ~= 1 and (", variant " .. variant) or "") .. ".")
        end
        return true
    end,
})

command("kill", {
    usage = "/kill",
    help = "die (and respawn at the next point)",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        if not player:is_spawned() then
            tell(player, "You have not spawned yet.", ERROR)
            return true
        end
        if not player:is_alive() then
            tell(player, "You are already dead.", ERROR)
            return true
        end
        -- A health of 0 commits the death in the same tick (player_death follows).
        try(player, player.set_health, player, 0)
        return true
    end,
})

-- The vehicle the player drives (seat 0), or nil after telling the player why not (`why`,
-- or the usual line).
local function driven(player, why)
    local vehicle, seat = player:vehicle()
    if not vehicle or seat ~= 0 then
        tell(player, why or "You are not driving a vehicle.", ERROR)
        return nil
    end
    return vehicle
end

-- The vehicle the player sits in (any seat), or nil after telling the player so.
local function sitting(player)
    local vehicle = player:vehicle()
    if not vehicle then
        tell(player, "You are not in a vehicle.", ERROR)
    end
    return vehicle
end

-- Vehicles /lock locked, by id: the life (epoch) they were locked in. A respawn is a new
-- life without the lock (docs/lua-api.md, "Vehicle parameters and colors").
local locked = {}

command("lock", {
    usage = "/lock",
    help = "lock or unlock the vehicle you drive (you can always get back in)",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        local vehicle = driven(player)
        if not vehicle then
            return true
        end
        local id = vehicle:id()
        if locked[id] == vehicle:epoch() then
            locked[id] = nil
            dlmp.set_vehicle_locked(vehicle, false)
            dlmp.set_vehicle_locked_for(vehicle, player, nil)
            tell(player, "Unlocked.")
        else
            locked[id] = vehicle:epoch()
            dlmp.set_vehicle_locked(vehicle, true)
            dlmp.set_vehicle_locked_for(vehicle, player, false)
            tell(player, "Locked: only you can get in.")
        end
        return true
    end,
})

command("color", {
    usage = "/color c1 c2",
    help = "repaint the vehicle you drive (colors 0..127)",
    run = function(player, args)
        local c1, c2 = whole(args[1], 0, 127), whole(args[2], 0, 127)
        if #args ~= 2 or not (c1 and c2) then
            return false
        end
        local vehicle = driven(player)
        if vehicle and try(player, dlmp.set_vehicle_colors, vehicle, c1, c2) then
            tell(player, "Colors " .. c1 .. " and " .. c2 .. ".")
        end
        return true
    end,
})

-- /anim's named animations: library, name, options of player:apply_animation.
local ANIMS = {
    dance = { "DANCING", "dnce_M_a", { loop = true } },
    sit = { "PED", "SEAT_idle", { loop = true } },
    wave = { "ON_LOOKERS", "wave_loop", { loop = true } },
    lay = { "BEACH", "bather", { loop = true } },
    smoke = { "SMOKING", "M_smklean_loop", { loop = true } },
    handsup = { "SHOP", "SHP_Rob_HandsUp", { freeze = true } },
}

command("anim", {
    usage = "/anim dance|sit|wave|lay|smoke|handsup|stop, or /anim LIB NAME",
    help = "play an animation (moving ends it) or stop it",
    run = function(player, args)
        if #args == 1 and args[1] == "stop" then
            try(player, player.clear_animations, player)
        elseif #args == 1 and ANIMS[args[1]] then
            local a = ANIMS[args[1]]
            try(player, player.apply_animation, player, a[1], a[2], a[3])
        elseif #args == 2 then
            if try(player, player.apply_animation, player, args[1], args[2]) then
                tell(player, "Playing " .. args[1] .. " " .. args[2] .. ".")
            end
        else
            return false
        end
        return true
    end,
})

-- Vehicle damage (docs/lua-api.md, "Vehicle health and damage").
command("fix", {
    usage = "/fix",
    help = "repair the vehicle you sit in (full health, no damage)",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        local vehicle = sitting(player)
        if not vehicle then
            return true
        end
        -- A wreck is refused with the reason; dlmp.respawn_vehicle would bring it back.
        if try(player, dlmp.repair_vehicle, vehicle) then
            tell(player, "Vehicle repaired.")
        end
        return true
    end,
})

-- Trains: /train spawns a freight train (537, three flatcars), a passenger train (538, three
-- carriages) or a tram (449) at the station of its line nearest to the player and seats the
-- player as its driver. The game puts a train on the track nearest to where it is created,
-- so a station is a point on its platform (ADR 0068 gives the sources). A player has one
-- train: a new one replaces it, and it goes when the player leaves.
local RAIL_STATIONS = {
    { name = "Unity Station, Los Santos", x = 1700.76, y = -1953.65, z = 14.88 },
    { name = "Market Station, Los Santos", x = 816.45, y = -1360.97, z = -0.51 },
    { name = "Cranberry Station, San Fierro", x = -1942.80, y = 168.42, z = 27.00 },
    { name = "Linden Station, Las Venturas", x = 2864.75, y = 1290.48, z = 11.39 },
    { name = "Yellow Bell Station, Las Venturas", x = 1433.49, y = 2620.08, z = 11.39 },
}
local TRAM_STOPS = {
    { name = "the tram stop at Cranberry Station, San Fierro", x = -1990.05, y = 131.38, z = 27.54 },
    { name = "the tram stop in Downtown, San Fierro", x = -1687.96, y = 1011.97, z = 17.58 },
}
local TRAINS = {
    freight = { model = 537, label = "freight train", stations = RAIL_STATIONS },
    passenger = { model = 538, label = "passenger train", stations = RAIL_STATIONS },
    tram = { model = 449, label = "tram", stations = TRAM_STOPS },
}
local own_trains = {}

local function nearest_station(stations, x, y)
    local best, best_d
    for _, s in ipairs(stations) do
        local d = (s.x - x) ^ 2 + (s.y - y) ^ 2
        if not best_d or d < best_d then
            best, best_d = s, d
        end
    end
    return best
end

command("train", {
    usage = "/train [freight|passenger|tram]",
    help = "a train at the nearest station of its line, you driving (passenger unless given)",
    run = function(player, args)
        local kind = args[1] or "passenger"
        local line = TRAINS[kind]
        if #args > 1 or not line then
            return false
        end
        local x, y = player:position()
        local station = nearest_station(line.stations, x, y)
        local old = own_trains[player:id()]
        if old and old:exists() then
            old:destroy()
        end
        local ok, train = pcall(dlmp.create_vehicle, line.model, station.x, station.y, station.z, 0)
        if not ok then
            tell(player, first_line(train), ERROR)
            return true
        end
        own_trains[player:id()] = train
        dlmp.set_train_direction(train, true)
        if try(player, dlmp.put_player_in_vehicle, player, train, 0) then
            tell(player, "Your " .. line.label .. " waits at " .. station.name .. ".")
        end
        return true
    end,
})

-- /flip: the vehicle you drive back on its wheels, facing where it faces now (a rotation
-- level at its heading; dlmp.set_vehicle_rotation keeps its speed).
command("flip", {
    usage = "/flip",
    help = "put the vehicle you drive back on its wheels",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        local vehicle = driven(player)
        if not vehicle then
            return true
        end
        local half = math.rad(vehicle:heading()) / 2
        if try(player, dlmp.set_vehicle_rotation, vehicle, 0, 0, math.sin(half), math.cos(half)) then
            tell(player, "Back on your wheels.")
        end
        return true
    end,
})
dlmp.on("player_disconnect", function(player)
    local train = own_trains[player:id()]
    own_trains[player:id()] = nil
    if train and train:exists() then
        train:destroy()
    end
end)

-- Vehicle life (vehicles.md VehicleExplode, docs/lua-api.md dlmp.respawn_vehicle): a wreck
-- comes back at its spawn point 10 s after it blew up or sank, unless it was respawned or
-- destroyed meanwhile; /vrespawn brings back the vehicle you sit in at once.
local WRECK_RESPAWN_MS = 10000

dlmp.on("vehicle_death", function(vehicle)
    local epoch = vehicle:epoch()
    dlmp.set_timer(WRECK_RESPAWN_MS, function()
        if vehicle:exists() and vehicle:epoch() == epoch then
            dlmp.respawn_vehicle(vehicle)
        end
    end)
end)

-- The demolition corner, on the lot south of the stunt park: a row of parked cars to blow
-- up with /demolition's satchels, grenades and rocket launcher. A wreck of the row comes
-- back after DEMOLITION_RESPAWN_MS, before the 10 s of every other wreck (that timer then
-- finds a new epoch and leaves it alone).
local DEMOLITION = { x = 420.0, y = -1705.0, z = 7.3 }
local DEMOLITION_ROW = { 404, 410, 419, 445, 466 } -- Perennial, Manana, Esperanto, Admiral, Glendale
local DEMOLITION_RESPAWN_MS = 3000
local demolition_cars = {} -- vehicle id -> true
for i, model in ipairs(DEMOLITION_ROW) do
    local car = dlmp.create_vehicle(model, DEMOLITION.x + (i - 3) * 6, DEMOLITION.y - 8, DEMOLITION.z, 0)
    dlmp.set_vehicle_plate(car, "FREEROAM") -- the plate of the park's cars (its map file)
    demolition_cars[car:id()] = true
end

dlmp.on("vehicle_death", function(vehicle)
    if not demolition_cars[vehicle:id()] then
        return
    end
    local epoch = vehicle:epoch()
    dlmp.set_timer(DEMOLITION_RESPAWN_MS, function()
        if vehicle:exists() and vehicle:epoch() == epoch then
            dlmp.respawn_vehicle(vehicle)
        end
    end)
end)

command("demolition", {
    usage = "/demolition",
    help = "go to the demolition corner with satchels, grenades and a rocket launcher",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        if not (player:is_spawned() and player:is_alive()) then
            tell(player, "You are not alive.", ERROR)
            return true
        end
        if not try(player, player.set_position, player, DEMOLITION.x, DEMOLITION.y, DEMOLITION.z) then
            return true
        end
        for _, name in ipairs({ "satchel", "grenade", "rocket" }) do
            local w = PROJECTILE_WEAPONS[name]
            player:give_weapon(w.id, w.ammo)
        end
        tell(player, "The demolition corner: blow up the parked cars (satchels, grenades, a rocket launcher). Wrecks come back in "
            .. DEMOLITION_RESPAWN_MS // 1000 .. " s.")
        return true
    end,
})

-- The kill feed: who blew up a vehicle and who killed whom, told to the players within
-- FEED_RANGE of where it happened.
local FEED_RANGE = 300
local FEED = 0xF0C05A
-- The means of death a DamageReport names (connection.md §6) and the weapons that kill.
local MEANS = {
    [0] = "fists", [4] = "knife", [16] = "grenade", [17] = "teargas", [18] = "molotov",
    [19] = "rocket", [20] = "heat-seeker",
    [22] = "pistol", [24] = "desert eagle", [25] = "shotgun", [29] = "MP5", [30] = "AK-47",
    [31] = "M4", [34] = "sniper rifle", [35] = "rocket", [36] = "heat-seeker",
    [37] = "fire", [38] = "minigun", [39] = "satchel", [49] = "vehicle", [50] = "rotor",
    [51] = "explosion", [53] = "drowning", [54] = "fall",
}

local function feed(text, x, y, z)
    local near = {}
    for _, p in ipairs(dlmp.players()) do
        local px, py, pz = p:position()
        if p:is_spawned() and (px - x) ^ 2 + (py - y) ^ 2 + (pz - z) ^ 2 <= FEED_RANGE ^ 2 then
            near[#near + 1] = p
        end
    end
    dlmp.send_chat(text, FEED, near)
end

-- Each player's last throw, launch or detonation, so the feed names what blew a vehicle up
-- (the server credits the killer by the same actions, weapons.md §6; 85 s is its longest
-- window).
local LAUNCH_MEMORY_MS = 85000
local last_launch = {} -- player id -> { weapon, at }
dlmp.on("player_projectile", function(player, projectile)
    last_launch[player:id()] = { weapon = projectile.weapon, at = dlmp.tick_count() }
end)
dlmp.on("player_satchel_detonate", function(player)
    last_launch[player:id()] = { weapon = 39, at = dlmp.tick_count() }
end)
dlmp.on("player_disconnect", function(player)
    last_launch[player:id()] = nil
end)

local function blown_by(killer, cause)
    local last = last_launch[killer:id()]
    if last and dlmp.tick_count() - last.at <= LAUNCH_MEMORY_MS then
        return MEANS[last.weapon] or cause
    end
    return cause
end

dlmp.on("vehicle_death", function(vehicle, cause, killer)
    local what = dlmp.vehicle_model_name(vehicle:model()) or "vehicle"
    local x, y, z = vehicle:position()
    if killer then
        feed(killer:name() .. " blew up a " .. what .. " (" .. blown_by(killer, cause) .. ")", x, y, z)
    else
        feed("A " .. what .. (cause == "water" and " sank." or " blew up."), x, y, z)
    end
end)

dlmp.on("player_death", function(player, killer, weapon)
    local means = MEANS[weapon] or ("weapon " .. weapon)
    local x, y, z = player:position()
    if killer and killer ~= player then
        feed(killer:name() .. " killed " .. player:name() .. " (" .. means .. ")", x, y, z)
    else
        feed(player:name() .. " died (" .. means .. ")", x, y, z)
    end
end)

command("vrespawn", {
    usage = "/vrespawn",
    help = "respawn the vehicle you sit in at its spawn point",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        local vehicle = sitting(player)
        if not vehicle then
            return true
        end
        if try(player, dlmp.respawn_vehicle, vehicle) then
            tell(player, "Vehicle respawned.")
        end
        return true
    end,
})

-- /tow: the nearest vehicle behind the one you drive, hitched as the game would (a tow
-- truck takes cars, a tractor also the farm trailer, a semi trailers: dlmp.attach_trailer
-- checks the pair, 25 m and the rest, and its error is told). Again: unhitch.
command("tow", {
    usage = "/tow",
    help = "hitch the nearest vehicle behind the tow truck or tractor you drive (again: unhitch)",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        local vehicle = driven(player, "Drive a tow truck or a tractor first.")
        if not vehicle then
            return true
        end
        local towed = vehicle:trailer()
        if towed then
            dlmp.detach_trailer(towed)
            tell(player, "Unhitched vehicle " .. towed:id() .. ".")
            return true
        end
        -- Behind: against the heading (0 = north, counter-clockwise; forward is -sin, cos).
        local x, y, z = vehicle:position()
        local h = math.rad(vehicle:heading())
        local fx, fy = -math.sin(h), math.cos(h)
        local best, best_d
        for _, v in ipairs(dlmp.vehicles()) do
            if v ~= vehicle then
                local vx, vy, vz = v:position()
                local dx, dy, dz = vx - x, vy - y, vz - z
                local d = math.sqrt(dx * dx + dy * dy + dz * dz)
                if dx * fx + dy * fy < 0 and d <= 25 and (not best_d or d < best_d) then
                    best, best_d = v, d
                end
            end
        end
        if not best then
            tell(player, "Nothing to hitch within 25 m behind you.", ERROR)
            return true
        end
        if try(player, dlmp.attach_trailer, best, vehicle) then
            tell(player, "Towing vehicle " .. best:id() .. " (model " .. best:model() .. ").")
        end
        return true
    end,
})

-- Tuning (docs/lua-api.md, "Tuning and handling"): 10x nitro on the vehicle you drive; the
-- server refuses it on a model that takes no parts (a motorbike, a boat, ...).
command("nos", {
    usage = "/nos",
    help = "10x nitro on the vehicle you drive",
    run = function(player, args)
        if #args ~= 0 then
            return false
        end
        local vehicle = driven(player)
        if vehicle and try(player, dlmp.add_vehicle_component, vehicle, 1010) then
            tell(player, "Nitro installed: 10 charges.")
        end
        return true
    end,
})

-- A command's run returns false for bad arguments; the player then gets the usage line.
-- An error it did not expect is told to the player like a refused call. Returning true
-- from the handler marks the command as handled (no "Unknown command").
dlmp.on("player_command", function(player, name, args)
    local cmd = commands[name]
    if not cmd then
        return -- not ours: another resource may take it, or the player hears "Unknown command"
    end
    local ok, valid = pcall(cmd.run, player, args)
    if not ok then
        tell(player, first_line(valid), ERROR)
    elseif not valid then
        tell(player, "Usage: " .. cmd.usage, ERROR)
    end
    return true
end)

-- Accounts: each player name's money, skin and last position, kept in the server's database
-- (docs/lua-api.md, "Database") behind a password. A player types /register PASSWORD once
-- and /login PASSWORD after each connect; nothing of an account is loaded or saved before
-- that. The database keeps only the password's hash (dlmp.hash_password, argon2 on a worker
-- thread: its callback runs a tick or so later). A handle inside player_disconnect no longer
-- answers position, money or skin, so a timer notes them every second while the player is
-- here, and the leave writes the last note; stopping or restarting freeroam writes every
-- logged-in player's account at once (the players stay, and /login again).
local START_MONEY = 500
local KILL_REWARD = 100
local MIN_PASSWORD = 4
local MAX_LOGIN_FAILURES = 3
local accounts = {} -- name -> the last note { money, skin, variant, x, y, z }, once logged in
local busy = {} -- name -> true while its /register or /login waits for the worker
local failures = {} -- name -> wrong passwords since it connected

dlmp.db_exec([[CREATE TABLE IF NOT EXISTS freeroam_accounts (
    name TEXT PRIMARY KEY, money INTEGER NOT NULL, skin INTEGER NOT NULL,
    variant INTEGER NOT NULL, x REAL, y REAL, z REAL, hash TEXT)]], function(_, err)
    if err then
        print("freeroam: accounts are not kept: " .. err)
    end
end)
-- A table made before accounts had passwords gets the column; it fails, unheard, when the
-- column is there.
dlmp.db_exec("ALTER TABLE freeroam_accounts ADD COLUMN hash TEXT", function() end)

-- What the account keeps of `player` now (the position only while it is alive).
local function note(player)
    local account = accounts[player:name()]
    if not account then
        return
    end
    account.money = player:money()
    account.skin, account.variant = player:skin()
    if player:is_spawned() and player:is_alive() then
        account.x, account.y, account.z = player:position()
    end
end

local function save(name, a)
    dlmp.db_exec([[UPDATE freeroam_accounts SET money = ?, skin = ?, variant = ?,
        x = COALESCE(?, x), y = COALESCE(?, y), z = COALESCE(?, z) WHERE name = ?]],
        { a.money, a.skin, a.variant, a.x, a.y, a.z, name })
end

-- The password of /register and /login, or nil after telling the usage.
local function password_of(player, args, usage)
    local password = args[1]
    if #args ~= 1 or #password < MIN_PASSWORD then
        tell(player, "Usage: " .. usage .. " (a password of " .. MIN_PASSWORD .. " characters or more, no spaces)", ERROR)
        return nil
    end
    if accounts[player:name()] then
        tell(player, "You are logged in already.", ERROR)
        return nil
    end
    if busy[player:name()] then
        tell(player, "Wait: your last /register or /login is still being checked.", ERROR)
        return nil
    end
    return password
end

-- The account's row of `player`'s name, then `fn(row)` if the player is still here; a
-- database error is told.
local function with_row(player, fn)
    local name = player:name()
    busy[name] = true
    dlmp.db_query("SELECT money, skin, variant, x, y, z, hash FROM freeroam_accounts WHERE name = ?",
        { name }, function(rows, err)
            if not player:exists() then
                busy[name] = nil
                return
            end
            if err then
                busy[name] = nil
                tell(player, "Accounts are not available: " .. first_line(err), ERROR)
                return
            end
            fn(rows[1])
        end)
end

command("register", {
    usage = "/register PASSWORD",
    help = "make an account for your name (money, skin and position are kept)",
    run = function(player, args)
        local password = password_of(player, args, "/register PASSWORD")
        if not password then return true end
        local name = player:name()
        with_row(player, function(row)
            if row and row.hash then
                busy[name] = nil
                tell(player, "This name has an account: /login PASSWORD.", ERROR)
                return
            end
            dlmp.hash_password(password, function(hash, err)
                busy[name] = nil
                if not player:exists() then return end
                if err then
                    tell(player, "Registering failed: " .. err, ERROR)
                    return
                end
                local skin, variant = player:skin()
                if row then -- an account from before passwords: its owner claims it
                    dlmp.db_exec("UPDATE freeroam_accounts SET hash = ? WHERE name = ? AND hash IS NULL",
                        { hash, name })
                    player:set_money(row.money)
                else
                    dlmp.db_exec("INSERT INTO freeroam_accounts (name, money, skin, variant, hash) VALUES (?, ?, ?, ?, ?)",
                        { name, START_MONEY, skin, variant, hash })
                    player:set_money(START_MONEY)
                end
                accounts[name] = {}
                note(player)
                tell(player, "Registered and logged in, " .. name .. ". Next time: /login PASSWORD.")
            end)
        end)
        return true
    end,
})

command("login", {
    usage = "/login PASSWORD",
    help = "log in to your account",
    run = function(player, args)
        local password = password_of(player, args, "/login PASSWORD")
        if not password then return true end
        local name = player:name()
        with_row(player, function(row)
            if not (row and row.hash) then
                busy[name] = nil
                tell(player, "No account for this name: /register PASSWORD.", ERROR)
                return
            end
            dlmp.verify_password(password, row.hash, function(ok, err)
                busy[name] = nil
                if not player:exists() then return end
                if not ok then
                    failures[name] = (failures[name] or 0) + 1
                    if failures[name] >= MAX_LOGIN_FAILURES then
                        player:kick("too many wrong passwords")
                    else
                        tell(player, err and ("Login failed: " .. err) or "Wrong password.", ERROR)
                    end
                    return
                end
                failures[name] = nil
                accounts[name] = {}
                player:set_money(row.money)
                pcall(player.set_skin, player, row.skin, row.variant) -- a skin no longer allowed: keep the current one
                if row.x then
                    if player:is_spawned() then
                        pcall(player.set_position, player, row.x, row.y, row.z)
                    else
                        dlmp.spawn_player(player, row.x, row.y, row.z, 0)
                    end
                end
                note(player)
                tell(player, "Welcome back, " .. name .. ": your money, skin and position are restored.")
            end)
        end)
        return true
    end,
})

local function ask_to_log_in(player)
    tell(player, "Your account: /login PASSWORD, or /register PASSWORD for a new one.")
end

dlmp.on("player_connect", ask_to_log_in)
-- Started (or restarted) after players joined: they log in again.
for _, player in ipairs(dlmp.players()) do
    ask_to_log_in(player)
end

dlmp.set_timer(1000, function()
    for _, player in ipairs(dlmp.players()) do
        note(player)
    end
end, true)

dlmp.on("player_death", function(player, killer)
    if killer and killer ~= player then
        killer:give_money(KILL_REWARD)
    end
end)

dlmp.on("player_disconnect", function(player)
    local name = player:name()
    local a = accounts[name]
    accounts[name], busy[name], failures[name] = nil, nil, nil
    if a then
        save(name, a)
    end
end)

-- Stopping (or restarting) freeroam: the players stay connected, so no player_disconnect
-- writes their accounts; write each one now, from where the player is.
dlmp.on("resource_stop", function(name)
    if name ~= dlmp.resource_name then
        return
    end
    for _, player in ipairs(dlmp.players()) do
        note(player)
        local a = accounts[player:name()]
        if a then
            save(player:name(), a)
        end
    end
end)
