-- editor: an in-game map editor for the admins of settings.lua.
--
-- /edit opens (or closes) an edit session; /place MODEL creates an object 3 m before the
-- editor and selects it; the game's cursor and gizmo move it (the server checks and applies
-- every commit). /save NAME [map|pwn] writes the objects this resource holds to
-- maps/NAME.map in the element XML, or to maps/NAME.pwn as CreateDynamicObject lines: both
-- formats the server's map loader reads. /load NAME [map|pwn] replaces them with that
-- file's.

local INFO = 0x9CC4E4
local ERROR = 0xE48A8A

-- The objects this resource holds, in the order they were made, with their scope:
-- { object = Object, interior = n, dimension = n }.
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
        if h.object:exists() then out[#out + 1] = h end
    end
    held = out
    return out
end

-- The lines of a file of each format, one object per line between a head and a tail.
local FORMATS = {
    map = {
        head = '<map edf:definitions="editor_main">',
        line = function(i, h, x, y, z, rx, ry, rz)
            return string.format(
                '    <object id="object (%d)" interior="%d" model="%d" dimension="%d" posX="%s" posY="%s" posZ="%s" rotX="%s" rotY="%s" rotZ="%s"></object>',
                i, h.interior, h.object:model(), h.dimension,
                number(x), number(y), number(z), number(rx), number(ry), number(rz))
        end,
        tail = "</map>",
        -- The scope of an object line, or nil for another line.
        scope = function(line)
            if not line:find("<object", 1, true) then return nil end
            return tonumber(line:match('interior="(%d+)"')) or 0,
                tonumber(line:match('dimension="(%d+)"')) or 0
        end,
    },
    pwn = {
        head = "// Objects saved by the editor resource: model, position, rotation, world, interior.",
        line = function(_, h, x, y, z, rx, ry, rz)
            return string.format("CreateDynamicObject(%d, %s, %s, %s, %s, %s, %s, %d, %d);",
                h.object:model(), number(x), number(y), number(z), number(rx), number(ry), number(rz),
                h.dimension, h.interior)
        end,
        scope = function(line)
            local args = line:match("^%s*CreateDynamicObject%((.*)%)")
            if not args then return nil end
            local values = {}
            for v in args:gmatch("[^,]+") do values[#values + 1] = tonumber(v) end
            local world, interior = values[8] or 0, values[9] or 0
            return math.max(interior, 0), math.max(world, 0)
        end,
    },
}

local function save_map(path, format)
    local f, objects = FORMATS[format], live()
    local lines = { f.head }
    for i, h in ipairs(objects) do
        local x, y, z = h.object:position()
        local rx, ry, rz = h.object:rotation()
        lines[#lines + 1] = f.line(i, h, x, y, z, rx, ry, rz)
    end
    lines[#lines + 1] = f.tail
    local file, err = io.open(path, "w")
    if not file then return nil, err end
    file:write(table.concat(lines, "\n"), "\n")
    file:close()
    return #objects
end

local function load_map(path, format)
    -- The scope of each object, in file order, as load_map creates them.
    local scopes = {}
    for line in io.lines(path) do
        local interior, dimension = FORMATS[format].scope(line)
        if interior then
            scopes[#scopes + 1] = { interior = interior, dimension = dimension }
        end
    end
    local created = dlmp.load_map(path)
    for _, h in ipairs(live()) do dlmp.destroy_object(h.object) end
    -- The list holds the objects first, in file order; the map's pickups and vehicles
    -- stay as loaded.
    held = {}
    for i, scope in ipairs(scopes) do
        held[i] = { object = created[i], interior = scope.interior, dimension = scope.dimension }
    end
    return #held
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
    local id = dlmp.start_edit(player, { camera = SETTINGS.camera, range = SETTINGS.range, kinds = { "object" } })
    tell(player, "Editing (session " .. id .. "): /place MODEL, /save NAME [map|pwn], /load NAME [map|pwn], /edit to stop.")
end))

dlmp.add_command("place", admin_only(function(player, args)
    if not player:edit_session() then return tell(player, "/edit first.", ERROR) end
    local model = tonumber(args[1])
    if not model then return tell(player, "Usage: /place MODEL", ERROR) end
    local x, y, z = player:edit_camera()
    if not x then x, y, z = player:position() end
    local fx, fy = player:camera_front()
    local len = math.sqrt(fx * fx + fy * fy)
    if len < 0.1 then fx, fy, len = 0, 1, 1 end
    local object = dlmp.create_object(model, x + 3 * fx / len, y + 3 * fy / len, z, 0, 0, 0,
        { virtual_world = player:virtual_world(), interior = player:interior() })
    held[#held + 1] = { object = object, interior = player:interior(), dimension = player:virtual_world() }
    tell(player, "Placed object " .. object:id() .. " (model " .. model .. ").")
    -- Selected once it is shown to the editor (the next stream pass).
    dlmp.set_timer(200, function()
        if object:exists() and player:exists() and player:edit_session() then
            pcall(dlmp.edit_select, player, object)
        end
    end)
end))

dlmp.add_command("save", admin_only(function(player, args)
    local path, format = map_path(args[1], args[2])
    if not path then return tell(player, "Usage: /save NAME [map|pwn] (NAME: letters, digits, _ and -)", ERROR) end
    local n, err = save_map(path, format)
    if not n then return tell(player, "Not saved: " .. tostring(err), ERROR) end
    tell(player, "Saved " .. n .. " objects to " .. path .. ".")
end))

dlmp.add_command("load", admin_only(function(player, args)
    local path, format = map_path(args[1], args[2])
    if not path then return tell(player, "Usage: /load NAME [map|pwn]", ERROR) end
    tell(player, "Loaded " .. load_map(path, format) .. " objects from " .. path .. ".")
end))

dlmp.on("entity_edit", function(player, object, action, pose)
    if action == "commit" then
        tell(player, string.format("Moved object %d to %.2f, %.2f, %.2f.", object:id(), pose.x, pose.y, pose.z))
    end
end)
