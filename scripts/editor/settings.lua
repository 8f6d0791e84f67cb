-- editor settings: who may edit, and the session the editor opens (docs/lua-api.md,
-- "Map editing").
SETTINGS = {
    -- Player names allowed to use /edit, /place, /save and /load.
    admins = { "admin" },
    -- "free": the admin flies a free camera; "own": the admin walks with its own camera.
    camera = "free",
    -- Meters around where /edit was typed that the session may edit.
    range = 300,
}
