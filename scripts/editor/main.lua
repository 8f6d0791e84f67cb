-- editor: an in-game map editor for the admins of settings.lua.
--
-- /edit opens (or closes) an edit session; /place MODEL creates an object 3 m before the
-- editor and /pickup MODEL a pickup, and selects it; the game's cursor and gizmo move it (the
-- server checks and applies every commit). /save NAME [map|pwn] writes the objects and
-- pickups this resource holds to maps/NAME.map in the element XML, or to maps/NAME.pwn as
-- CreateDynamicObject and CreateDynamicPickup lines: both formats the server's map loader
-- reads. /load NAME [map|pwn] replaces them with that file's. Vehicles are not editable
-- (editing.md section 1), so the editor neither places nor saves them (ADR 0114).

local INFO = 0x9CC4E4
local ERROR = 0xE48A8A

-- The respawn of a placed pickup, ms: the map loader's default for a pickup without one.
local PICKUP_RESPAWN_MS = 30000

-- The objects and pickups this resource holds, in the order they were made, with their
-- scope: { kind = "object" | "pickup", entity = Object | Pickup, interior = n,
-- dimension = n, respawn = ms (pickups) }.
local held = {}

local function tell(player, text, color)
    dlmp.send_chat(text, color or INFO, { player })
end

local function is_admin(player)
    for _, name in ipairs(SETTINGS.admins) do
        if name == player:name() then return true end
    end
    return false
end

-- The shortest decimal that reads back as the same 32-bit float the server holds, so a
-- saved map loads to the same poses and saves to the same bytes.
local function number(v)
    for digits = 1, 9 do
        local text = string.format("%." .. digits .. "g", v)
        if string.unpack("f", string.pack("f", tonumber(text))) == v then
            if not text:find("[%.e]") then text = text .. ".0" end
            return text
        end
    end
    return string.format("%.9g", v)
end

-- The file of /save and /load: NAME (letters, digits, _ and -) and the format, .map unless
-- named.
local function map_path(name, format)
    format = format or "map"
    if not name or not name:match("^[%w_%-]+$") then return nil end
    if format ~= "map" and format ~= "pwn" then return nil end
    return "maps/" .. name .. "." .. format, format
end

local function live()
    local out = {}
    for _, h in ipairs(held) do
        if h.entity:exists() then out[#out + 1] = h end
    end
    held = out
    return out
end

-- The numbers of a call's argument list, or nil when `line` is not a call of `name`.
local function call_args(line, name)
    local args = line:match("^%s*" .. name .. "%((.*)%)")
    if not args then return nil end
    local values = {}
    for v in args:gmatch("[^,]+") do values[#values + 1] = tonumber(v) end
    return values
end

-- The lines of a file of each format between a head and a tail: each object, then each
-- pickup, as dlmp.load_map returns them. `entry` reads a line back: its kind and what the
-- server does not keep on the entity (scope, respawn), or nil for another line.
local FORMATS = {
    map = {
        head = '<map edf:definitions="editor_main">',
        object = function(i, h, x, y, z, rx, ry, rz)
            return string.format(
                '    <object id="object (%d)" interior="%d" model="%d" dimension="%d" posX="%s" posY="%s" posZ="%s" rotX="%s" rotY="%s" rotZ="%s"></object>',
                i, h.interior, h.entity:model(), h.dimension,
                number(x), number(y), number(z), number(rx), number(ry), number(rz))
        end,
        pickup = function(i, h, x, y, z)
            return string.format(
                '    <pickup id="pickup (%d)" type="custom" model="%d" interior="%d" dimension="%d" respawn="%d" posX="%s" posY="%s" posZ="%s"></pickup>',
                i, h.entity:model(), h.interior, h.dimension, h.respawn, number(x), number(y), number(z))
        end,
        tail = "</map>",
        entry = function(line)
            local kind = line:match("^%s*<(%a+)")
            if kind ~= "object" and kind ~= "pickup" then return nil end
            return {
                kind = kind,
                interior = tonumber(line:match('interior="(%d+)"')) or 0,
                dimension = tonumber(line:match('dimension="(%d+)"')) or 0,
                respawn = tonumber(line:match('respawn="(%d+)"')) or PICKUP_RESPAWN_MS,
            }
        end,
    },
    pwn = {
        head = "// Saved by the editor resource: objects (model, position, rotation, world, interior), then pickups (model, type, position, world, interior).",
        object = function(_, h, x, y, z, rx, ry, rz)
            return string.format("CreateDynamicObject(%d, %s, %s, %s, %s, %s, %s, %d, %d);",
                h.entity:model(), number(x), number(y), number(z), number(rx), number(ry), number(rz),
                h.dimension, h.interior)
        end,
        -- Type 2: collected, back after the format's 30 s (the respawn of every placed pickup).
        pickup = function(_, h, x, y, z)
            return string.format("CreateDynamicPickup(%d, 2, %s, %s, %s, %d, %d);",
                h.entity:model(), number(x), number(y), number(z), h.dimension, h.interior)
        end,
        entry = function(line)
            local values, kind = call_args(line, "CreateDynamicObject"), "object"
            local world, interior = 8, 9
            if not values then
                values, kind, world, interior = call_args(line, "CreateDynamicPickup"), "pickup", 6, 7
            end
            if not values then return nil end
            return {
                kind = kind,
                interior = math.max(values[interior] or 0, 0),
                dimension = math.max(values[world] or 0, 0),
                respawn = PICKUP_RESPAWN_MS,
            }
        end,
    },
}

-- The held entries of `kind`, in the order they were made.
local function of_kind(list, kind)
    local out = {}
    for _, h in ipairs(list) do
        if h.kind == kind then out[#out + 1] = h end
    end
    return out
end

local function save_map(path, format)
    local f, entries = FORMATS[format], live()
    local lines = { f.head }
    for i, h in ipairs(of_kind(entries, "object")) do
        local x, y, z = h.entity:position()
        local rx, ry, rz = h.entity:rotation()
        lines[#lines + 1] = f.object(i, h, x, y, z, rx, ry, rz)
    end
    for i, h in ipairs(of_kind(entries, "pickup")) do
        lines[#lines + 1] = f.pickup(i, h, h.entity:position())
    end
    lines[#lines + 1] = f.tail
    local file, err = io.open(path, "w")
    if not file then return nil, err end
    file:write(table.concat(lines, "\n"), "\n")
    file:close()
    return #of_kind(entries, "object"), #of_kind(entries, "pickup")
end

local function load_map(path, format)
    -- Each object's and pickup's line, in file order.
    local entries = {}
    for line in io.lines(path) do
        entries[#entries + 1] = FORMATS[format].entry(line)
    end
    local created = dlmp.load_map(path)
    for _, h in ipairs(live()) do h.entity:destroy() end
    -- dlmp.load_map returns the objects first, then the pickups, each in file order (then
    -- a map's vehicles, which stay as loaded).
    held = {}
    for _, kind in ipairs({ "object", "pickup" }) do
        for _, e in ipairs(of_kind(entries, kind)) do
            e.entity = created[#held + 1]
            held[#held + 1] = e
        end
    end
    return #of_kind(held, "object"), #of_kind(held, "pickup")
end

local function admin_only(fn)
    return function(player, args)
        if not is_admin(player) then return tell(player, "Only admins may edit the map.", ERROR) end
        local ok, err = pcall(fn, player, args)
        if not ok then tell(player, tostring(err):match("^[^\n]*"), ERROR) end
    end
end

dlmp.add_command("edit", admin_only(function(player)
    if player:edit_session() then
        dlmp.stop_edit(player)
        return
    end
    local id = dlmp.start_edit(player, { camera = SETTINGS.camera, range = SETTINGS.range, kinds = { "object", "pickup" } })
    tell(player, "Editing (session " .. id .. "): /place MODEL, /pickup MODEL, /save NAME [map|pwn], /load NAME [map|pwn], /edit to stop.")
end))

-- 3 m before the editor (its camera point with the free camera, its body otherwise), along
-- its aim.
local function before(player)
    local x, y, z = player:edit_camera()
    if not x then x, y, z = player:position() end
    local fx, fy = player:camera_front()
    local len = math.sqrt(fx * fx + fy * fy)
    if len < 0.1 then fx, fy, len = 0, 1, 1 end
    return x + 3 * fx / len, y + 3 * fy / len, z
end

-- Holds `entity` and selects it once it is shown to the editor (the next stream pass).
local function hold(player, kind, entity, respawn)
    held[#held + 1] = {
        kind = kind, entity = entity, respawn = respawn,
        interior = player:interior(), dimension = player:virtual_world(),
    }
    tell(player, "Placed " .. kind .. " " .. entity:id() .. " (model " .. entity:model() .. ").")
    dlmp.set_timer(200, function()
        if entity:exists() and player:exists() and player:edit_session() then
            pcall(dlmp.edit_select, player, entity)
        end
    end)
end

-- The MODEL of /place and /pickup, or nil after telling the usage.
local function model_arg(player, args, command)
    if not player:edit_session() then return tell(player, "/edit first.", ERROR) end
    local model = tonumber(args[1])
    if not model then return tell(player, "Usage: /" .. command .. " MODEL", ERROR) end
    return model
end

dlmp.add_command("place", admin_only(function(player, args)
    local model = model_arg(player, args, "place")
    if not model then return end
    local x, y, z = before(player)
    local object = dlmp.create_object(model, x, y, z, 0, 0, 0,
        { virtual_world = player:virtual_world(), interior = player:interior() })
    hold(player, "object", object)
end))

dlmp.add_command("pickup", admin_only(function(player, args)
    local model = model_arg(player, args, "pickup")
    if not model then return end
    local x, y, z = before(player)
    local pickup = dlmp.create_pickup(model, x, y, z, {
        respawn_ms = PICKUP_RESPAWN_MS, virtual_world = player:virtual_world(), interior = player:interior(),
    })
    hold(player, "pickup", pickup, PICKUP_RESPAWN_MS)
end))

dlmp.add_command("save", admin_only(function(player, args)
    local path, format = map_path(args[1], args[2])
    if not path then return tell(player, "Usage: /save NAME [map|pwn] (NAME: letters, digits, _ and -)", ERROR) end
    local objects, pickups = save_map(path, format)
    if not objects then return tell(player, "Not saved: " .. tostring(pickups), ERROR) end
    tell(player, string.format("Saved %d objects and %d pickups to %s.", objects, pickups, path))
end))

dlmp.add_command("load", admin_only(function(player, args)
    local path, format = map_path(args[1], args[2])
    if not path then return tell(player, "Usage: /load NAME [map|pwn]", ERROR) end
    local objects, pickups = load_map(path, format)
    tell(player, string.format("Loaded %d objects and %d pickups from %s.", objects, pickups, path))
end))

dlmp.on("entity_edit", function(player, entity, action, pose)
    if action == "commit" then
        -- The session edits objects and pickups; an object's pose has a rotation.
        local kind = pose.rx and "object" or "pickup"
        tell(player, string.format("Moved %s %d to %.2f, %.2f, %.2f.", kind, entity:id(), pose.x, pose.y, pose.z))
    end
end)
