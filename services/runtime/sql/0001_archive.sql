-- The archive: finished (sealed) games, copied from Valkey by the archiver with every stored
-- field's exact bytes, so the hash chain, the seal's signature and every receipt verify from
-- here as they did from the hot store. Rows are only ever added: no role but the owner may
-- change or remove one.

-- One row per archived game: its meta hash (tabula:game:{id}:meta) at the seal.
CREATE TABLE archived_games (
    game_id       text PRIMARY KEY,
    ruleset       text NOT NULL,
    chain         text NOT NULL,              -- the hash chain version (meta `chain`)
    head_version  bigint NOT NULL CHECK (head_version > 0),
    head_hash     text NOT NULL,              -- h_n, lowercase hex (meta `head`)
    result        text,
    reason        text,
    created_at    timestamptz NOT NULL,       -- the game's first event's time
    sealed_at     timestamptz NOT NULL,       -- the GameSealed event's time
    archived_at   timestamptz NOT NULL DEFAULT now()
);

-- Every entry of the game's stream (tabula:game:{id}:log), each field as stored (append.lua:
-- g v type body cmd ts h, and act when the command had an action).
CREATE TABLE archived_events (
    game_id    text NOT NULL REFERENCES archived_games (game_id),
    version    bigint NOT NULL CHECK (version > 0),
    stream_id  bytea NOT NULL,                -- the entry id, 0-<version>
    g          bytea NOT NULL,
    v          bytea NOT NULL,
    type       bytea NOT NULL,
    body       bytea NOT NULL,
    cmd        bytea NOT NULL,
    ts         bytea NOT NULL,
    h          bytea NOT NULL,
    act        bytea,                         -- absent: NULL (not the empty string)
    PRIMARY KEY (game_id, version)
);

-- The game's command ids (tabula:game:{id}:cmds): command id -> "first last hash", the
-- receipt a late retry of the command is answered with; the typed columns are that value read.
CREATE TABLE archived_commands (
    game_id        text NOT NULL REFERENCES archived_games (game_id),
    command_id     bytea NOT NULL,
    value          bytea NOT NULL,            -- as stored: "<first> <last> <hash>"
    first_version  bigint NOT NULL,
    last_version   bigint NOT NULL,
    hash           text NOT NULL,
    PRIMARY KEY (game_id, command_id),
    CHECK (0 < first_version AND first_version <= last_version)
);
CREATE INDEX archived_games_sealed_at ON archived_games (sealed_at);

-- The archiver adds and reads (INSERT ... ON CONFLICT DO NOTHING: archiving twice is
-- harmless); the readers read. Nobody but the owner updates, deletes or truncates.
GRANT SELECT, INSERT ON archived_games, archived_events, archived_commands TO archiver;
GRANT SELECT ON archived_games, archived_events, archived_commands
    TO projector, gateway, auditor, rules;
