"""The Lua scripts of ``MinHashLSH``'s Redis storage (``_lsh_redis``): each
operation on one document is one script, so one round trip, atomic.

The keys of one index (its prefix ``P`` is ``{basename}``, a hash tag):

- ``P:keys``: hash, stored key -> ``id NUL bands`` (the document's number,
  in decimal, then its band keys, each prefixed with its length on 2 bytes,
  big-endian; a key inserted twice without the duplication check has its
  bands twice, as datasketch's list);
- ``P:ids``: hash, id -> stored key;
- ``P:seq``: the last id given (``INCR``);
- ``P:s:<band><H>``: set of the ids in band ``band`` (2 bytes, big-endian)
  whose band key is ``H``: a bucket. Integer members keep a small set
  compact (Redis's intset). There is no index of the buckets (it would
  cost a third more memory): ``len``, iteration and ``get_counts`` of the
  bands ``SCAN`` for ``P:s:*``.

Scripts get every key they touch in ``KEYS`` except ``REMOVE``'s buckets,
known only once the stored bands are read: it makes their names from the
prefix, so they share the index's slot.
"""

# ids -> stored keys, in chunks (Lua's unpack has a stack limit).
_NAMES = """
local function names(ids_key, ids)
  local out = {}
  for i = 1, #ids, 1000 do
    local part = redis.call('HMGET', ids_key, unpack(ids, i, math.min(i + 999, #ids)))
    for _, v in ipairs(part) do out[#out + 1] = v end
  end
  return out
end
"""

# KEYS: P:ids, buckets...  -> the stored keys in any of the buckets.
QUERY = _NAMES + """
local found = redis.call('SUNION', unpack(KEYS, 2))
return names(KEYS[1], found)
"""

# Adds a document. KEYS: P:keys, P:ids, P:seq, buckets x b.
# ARGV: stored key, packed bands, check ('1': refuse a stored key).
# -> 1, or 0 (refused).
_ADD = """
local function add(b, check)
  local old = redis.call('HGET', KEYS[1], ARGV[1])
  if old and check then return 0 end
  local id
  if old then
    id = string.sub(old, 1, string.find(old, '\\0', 1, true) - 1)
    redis.call('HSET', KEYS[1], ARGV[1], old .. ARGV[2])
  else
    id = string.format('%d', redis.call('INCR', KEYS[3]))
    redis.call('HSET', KEYS[1], ARGV[1], id .. '\\0' .. ARGV[2])
    redis.call('HSET', KEYS[2], id, ARGV[1])
  end
  for i = 1, b do
    redis.call('SADD', KEYS[3 + i], id)
  end
  return 1
end
"""

INSERT = _ADD + """
return add(#KEYS - 3, ARGV[3] == '1')
"""

# Same KEYS and ARGV as INSERT (ARGV[3] unused). -> {1} inserted; {0,
# stored keys...}: the keys sharing a band, nothing inserted; {2}: the key
# is stored and shares no band.
INSERT_IF_NEW = _NAMES + _ADD + """
local b = #KEYS - 3
local found = redis.call('SUNION', unpack(KEYS, 4, 3 + b))
if #found > 0 then
  local out = names(KEYS[2], found)
  table.insert(out, 1, 0)
  return out
end
if add(b, true) == 0 then return {2} end
return {1}
"""

# KEYS: P:keys, P:ids. ARGV: stored key, prefix P, b. -> 1, or 0 (absent).
REMOVE = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local b = tonumber(ARGV[3])
local z = string.find(v, '\\0', 1, true)
local id = string.sub(v, 1, z - 1)
local pos, i = z + 1, 0
while pos <= #v do
  local n = string.byte(v, pos) * 256 + string.byte(v, pos + 1)
  local h = string.sub(v, pos + 2, pos + 1 + n)
  pos = pos + 2 + n
  local j = i % b
  local band = string.char(math.floor(j / 256), j % 256)
  redis.call('SREM', ARGV[2] .. ':s:' .. band .. h, id)
  i = i + 1
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], id)
return 1
"""
