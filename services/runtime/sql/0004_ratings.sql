-- Ratings (issue 23), part of the read model: derived from the finished rated games' logs by
-- the projector's ratings pass (services/projector/ratings.py) and by `tabula projections
-- rebuild`, never written from anywhere else. Every number is a pure function of the games
-- applied (domain/ratings/games.py) in ONE order, (end time, game id), so a rebuild gives the
-- same floats and `tabula ratings --verify` can compare them exactly.

-- What the ratings pass needs of a game, beside what `games` held: whether it counts for the
-- ratings and its time-control class, both from its GameCreated. Rows projected before this
-- file say false and NULL until they are projected again (a rebuild fills them).
ALTER TABLE games ADD COLUMN rated boolean NOT NULL DEFAULT false;
ALTER TABLE games ADD COLUMN speed text;      -- domain.ratings.speed of its clock
-- The pass's candidates, in its order: finished rated games by (ended_at, game_id).
CREATE INDEX games_rated_ended ON games (ended_at, game_id) WHERE rated AND ended_at IS NOT NULL;
-- The games in play, the latest moved first (the gateway's live list, polled by every lobby).
CREATE INDEX games_live ON games (updated_at DESC, game_id) WHERE ended_at IS NULL;

-- A player's current rating per class (ruleset, variant family, speed). `system` says which
-- columns hold it: Glicko-2's rating/deviation/volatility for two-sided games, Weng–Lin's
-- mu/sigma for more sides or teams (the other system's columns are NULL). Floats are double
-- precision: Python's, stored and read back bit for bit.
CREATE TABLE ratings (
    player      text NOT NULL,
    ruleset     text NOT NULL,
    family      text NOT NULL,                -- the variant before its "+" parameters
    speed       text NOT NULL,
    system      text NOT NULL CHECK (system IN ('glicko2', 'wenglin')),
    rating      double precision,
    deviation   double precision,
    volatility  double precision,
    mu          double precision,
    sigma       double precision,
    games       integer NOT NULL CHECK (games >= 0),
    last_ms     bigint NOT NULL,              -- the end of the last game rated (log time, ms)
    PRIMARY KEY (player, ruleset, family, speed),
    CHECK ((system = 'glicko2') = (rating IS NOT NULL AND deviation IS NOT NULL
                                   AND volatility IS NOT NULL)),
    CHECK ((system = 'wenglin') = (mu IS NOT NULL AND sigma IS NOT NULL))
);
-- A class's leaderboard.
CREATE INDEX ratings_leaderboard ON ratings (ruleset, family, speed, rating DESC);

-- Every change, one row per rated player per game: a player's history, and what --verify
-- replays against. `seq` is the game's place in the order applied (1, 2, ...: the n-th game
-- rated), shared by its players' rows.
CREATE TABLE rating_changes (
    seq                 bigint NOT NULL CHECK (seq > 0),
    game_id             text NOT NULL,
    player              text NOT NULL,
    seat                integer NOT NULL CHECK (seat >= 0),
    ruleset             text NOT NULL,
    family              text NOT NULL,
    speed               text NOT NULL,
    system              text NOT NULL CHECK (system IN ('glicko2', 'wenglin')),
    ended_ms            bigint NOT NULL,
    rating_before       double precision,
    deviation_before    double precision,
    volatility_before   double precision,
    mu_before           double precision,
    sigma_before        double precision,
    rating_after        double precision,
    deviation_after     double precision,
    volatility_after    double precision,
    mu_after            double precision,
    sigma_after         double precision,
    PRIMARY KEY (game_id, player)
);
CREATE INDEX rating_changes_player ON rating_changes (player, seq);
CREATE INDEX rating_changes_seq ON rating_changes (seq);

-- How far the ratings pass went, one row: the last game looked at in the order (rated or not)
-- as (ended_ms, game_id), the last `seq` given, and how many candidates (games rows rated and
-- ended) it looked at up to there. A candidate that reaches the read model after the position
-- passed it makes that count disagree: the pass then rates everything again from nothing, so
-- the order stays the one a rebuild uses. Moved only with the rows it covers, in their
-- transaction, under FOR UPDATE: two projectors never apply one game twice.
CREATE TABLE ratings_position (
    only_row    boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    ended_ms    bigint NOT NULL,
    game_id     text NOT NULL,
    seq         bigint NOT NULL,
    looked      bigint NOT NULL
);
INSERT INTO ratings_position (ended_ms, game_id, seq, looked) VALUES (-1, '', 0, 0);

-- The projector writes them (a rebuild deletes the rows and writes them again in its
-- transaction, under an EXCLUSIVE lock that leaves reads alone); the readers read.
GRANT SELECT, INSERT, UPDATE, DELETE ON ratings, rating_changes TO projector;
GRANT SELECT, UPDATE ON ratings_position TO projector;
GRANT SELECT ON ratings, rating_changes, ratings_position TO gateway, auditor;
