-- Enqueue (or refresh) one ticket in one queue and, once the queue holds `seats` live tickets,
-- take the first `seats` of them out as a table and record it, all in one step: however many
-- matchmakers run this at once, a ticket is seated in one table at most.
-- Every key is the queue's (keys.match_*), under its one hash tag, so one slot:
-- KEYS[1] its waiting tickets (sorted set, by first enqueue), KEYS[2] its tables not yet
-- completed (sorted set, by formation), KEYS[3] this ticket's hash, KEYS[4] the hash of the
-- table this call would form. The other tickets' hashes are built from ARGV[14], the queue's
-- key prefix (keys.match_prefix), as keys.match_ticket_key builds them: the same hash tag.
-- ARGV: ticket, owner (SHA-256 of the owner secret, hex), player, reply_key, now (ms),
-- ttl (s), seats, add ("1": add the ticket when absent; "0": only look for it), table id,
-- command id, private key (hex), ruleset, variant, key prefix.
-- Returns {"forbidden"}: held by another owner (digests compared: a digest's timing tells
-- nothing of its secret); {"absent"}: add "0" and no such ticket; {"seated", table}: the
-- ticket is in a table not yet completed; {"queued", live tickets waiting}; or {"table", id}:
-- this call formed table `id`, its tickets no longer waiting.
local waiting, tables, mine, formed = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local ticket, owner, now, ttl = ARGV[1], ARGV[2], ARGV[5], ARGV[6]
local seats, prefix = tonumber(ARGV[7]), ARGV[14]

local held = redis.call('HMGET', mine, 'owner', 'table', 'since')
if held[1] then
  if held[1] ~= owner then return {'forbidden'} end
  if held[2] then return {'seated', held[2]} end
  redis.call('EXPIRE', mine, ttl)
  redis.call('ZADD', waiting, 'NX', held[3], ticket)  -- keeps its place in the queue
elseif ARGV[8] ~= '1' then
  return {'absent'}
else
  redis.call('HSET', mine, 'player', ARGV[3], 'owner', owner, 'reply_key', ARGV[4],
    'since', now)
  redis.call('EXPIRE', mine, ttl)
  redis.call('ZADD', waiting, now, ticket)
end

-- The live tickets in queue order; one whose hash has expired is dropped here.
local live = {}
for _, t in ipairs(redis.call('ZRANGE', waiting, 0, -1)) do
  if redis.call('EXISTS', prefix .. 'ticket:' .. t) == 1 then
    live[#live + 1] = t
  else
    redis.call('ZREM', waiting, t)
  end
end
if #live < seats then return {'queued', #live} end

-- The table: each seat's ticket, player and reply key copied in, so it is complete by itself.
-- A seated ticket keeps its hash, without expiry, marked with its table until the table is
-- completed (a retry of its enqueue then completes the table, never queues it again).
local id = ARGV[9]
local fields = {'ruleset', ARGV[12], 'variant', ARGV[13], 'command', ARGV[10],
  'key', ARGV[11], 'created', now}
local seated = {}
for seat = 0, seats - 1 do
  local t = live[seat + 1]
  local key = prefix .. 'ticket:' .. t
  local who = redis.call('HMGET', key, 'player', 'reply_key', 'since')
  fields[#fields + 1] = 'player:' .. seat
  fields[#fields + 1] = who[1]
  fields[#fields + 1] = 'reply_key:' .. seat
  fields[#fields + 1] = who[2]
  fields[#fields + 1] = 'since:' .. seat
  fields[#fields + 1] = who[3]
  redis.call('HSET', key, 'table', id)
  redis.call('PERSIST', key)
  redis.call('ZREM', waiting, t)
  seated[#seated + 1] = t
end
fields[#fields + 1] = 'tickets'
fields[#fields + 1] = table.concat(seated, ' ')
redis.call('HSET', formed, unpack(fields))
redis.call('ZADD', tables, now, id)
return {'table', id}
