-- Atomic, idempotent append of one command's events to one game's stream.
-- KEYS[1] log stream, KEYS[2] meta hash (version, head, chain), KEYS[3] command-id hash
-- ARGV: expected_version, prev_hash, command_id, time_ms, game_id, n, then (type, body, hash) x n,
-- then the hash chain version the hashes were computed under (meta `chain`: written by the
-- game's first append; absent in a game created before chain v2, which is v1), then the
-- command's action ("<seat> <action>", stored as `act` on every entry when not empty), then
-- field/value pairs the events imply for the meta (`ruleset` on creation; `result` and
-- `reason` with a GameEnded), so derived state moves in the same step as the events
-- Hashes are computed by the caller (Lua has no SHA-256); checking both the expected version
-- and the head hash means a caller with a stale or forked view can never extend the chain.
local done = redis.call('HGET', KEYS[3], ARGV[3])
if done then
  -- Written again, so that this connection's WAITAOF (on a cluster) waits for a replica to
  -- hold it, and so the original append before it: a retry is acknowledged no sooner.
  redis.call('HSET', KEYS[3], ARGV[3], done)
  return {'dup', done}
end
local version = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
local expected = tonumber(ARGV[1])
-- A create is made at most 5 minutes after its time (ARGV[4], taken once the rules service
-- had looked in the archive for the game): a removed game's tombstone (forget.lua) outlives
-- that, so a create cannot slip between a look that found nothing and a removal.
if expected == 0 then
  local now = redis.call('TIME')
  if tonumber(now[1]) * 1000 - tonumber(ARGV[4]) > 300000 then return {'stale', '0'} end
end
if version ~= expected then return {'conflict', tostring(version)} end
if version > 0 and redis.call('HGET', KEYS[2], 'head') ~= ARGV[2] then
  return {'conflict', tostring(version)}
end
local n = tonumber(ARGV[6])
local chain = ARGV[7 + 3 * n]
if expected > 0 and (redis.call('HGET', KEYS[2], 'chain') or '1') ~= chain then
  return {'chain', tostring(version)}
end
local action = ARGV[8 + 3 * n]
local hash = ARGV[2]
for i = 0, n - 1 do
  version = version + 1
  hash = ARGV[9 + 3 * i]
  if action ~= '' then
    redis.call('XADD', KEYS[1], '0-' .. version,
      'g', ARGV[5], 'v', version, 'type', ARGV[7 + 3 * i], 'body', ARGV[8 + 3 * i],
      'cmd', ARGV[3], 'ts', ARGV[4], 'h', hash, 'act', action)
  else
    redis.call('XADD', KEYS[1], '0-' .. version,
      'g', ARGV[5], 'v', version, 'type', ARGV[7 + 3 * i], 'body', ARGV[8 + 3 * i],
      'cmd', ARGV[3], 'ts', ARGV[4], 'h', hash)
  end
end
local result = (expected + 1) .. ' ' .. version .. ' ' .. hash
redis.call('HSET', KEYS[2], 'version', version, 'head', hash, 'chain', chain,
  unpack(ARGV, 9 + 3 * n))
redis.call('HSET', KEYS[3], ARGV[3], result)
return {'ok', result}
