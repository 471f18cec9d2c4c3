--#include common
--#include vocabulary
-- ARGV: prefix, bulk ('1': the set and posting memberships of documents new to the generation are left to the
-- client, which is told their handles; only for a staged generation), number of sections; per section (one
-- projection's commit): projection, checkpoint JSON ('' = leave it), generation ('' = the live one), fence
-- ('' = none), expected checkpoint position ('' = no check, '-' = no checkpoint), number of writes; then every
-- section's writes, in order. Every section is checked before anything is written, so a refused section refuses the
-- whole call.
local P, bulk = ARGV[1], ARGV[2] == '1'
local p = 4
local function arg() local v = ARGV[p]; p = p + 1; return v end
local sections = {}
local newestFence = nil
for s = 1, tonumber(ARGV[3]) do
  local projection, checkpoint, G, fence, expected, writes = arg(), arg(), arg(), arg(), arg(), tonumber(arg())
  if expected ~= '' then
    local current = redis.call('HGET', P .. 'checkpoints', projection)
    local holds
    if expected == '-' then holds = not current
    else holds = current and cjson.decode(current).position == tonumber(expected) end
    if not holds then return redis.error_reply('STALE checkpoint ' .. projection .. ' is not at ' .. expected) end
  end
  local live = tonumber(redis.call('HGET', P .. 'gen:live', projection) or '0')
  local staged = false
  if G == '' then G = live else G = tonumber(G) end
  if G ~= live then
    if tonumber(redis.call('HGET', P .. 'gen:staged', projection) or '-1') ~= G then
      return redis.error_reply('STALE generation ' .. G .. ' of ' .. projection .. ' is neither live nor staged')
    end
    staged = true
  elseif bulk then
    return redis.error_reply('bulk commits go to a staged generation only')
  elseif fence ~= '' then
    if newestFence == nil then newestFence = redis.call('GET', P .. 'projector:fence') end
    if newestFence ~= fence then return redis.error_reply('STALE fence ' .. fence .. ' is not the newest projector lease') end
  end
  sections[s] = { projection = projection, checkpoint = checkpoint, G = G, staged = staged, writes = writes }
end

local function pairsToMap(list)
  local m = {}
  for i = 1, #list, 2 do m[list[i]] = list[i + 1] end
  return m
end
local function toSet(list)
  local m = {}
  for _, v in ipairs(list) do m[v] = true end
  return m
end
-- The stored text's indexed tokens (MIN_TOKEN_BYTES and more).
local function tokensOf(text)
  local t = {}
  for tok in string.gmatch(text, LUA_TOKEN) do
    if #tok >= ${MIN_TOKEN_BYTES} then t[tok] = true end
  end
  return t
end
-- The distinct tokens the client sent, space-separated.
local function sentTokens(packed)
  local t = {}
  for tok in string.gmatch(packed, '[^ ]+') do t[tok] = true end
  return t
end

-- Set memberships (set fields, posting sets) are gathered over the whole call and sent at its end as one variadic
-- SREM and SADD per set: the documents of a batch share most posting sets, so this is far fewer calls than one
-- per token per document. Per (set, handle) the last change wins, which is what applying them in order gives;
-- nothing in the script reads set memberships before the end.
-- Kept as prefix → suffix → handle → present, so no key string is built per token per document.
local memberships = {}
local function member(prefix, suffix, h, present)
  local byPrefix = memberships[prefix]
  if not byPrefix then byPrefix = {}; memberships[prefix] = byPrefix end
  local m = byPrefix[suffix]
  if not m then m = {}; byPrefix[suffix] = m end
  m[h] = present
end
-- Hash and sorted-set writes are buffered as well, per key (hash field → value, or false to delete it; zset member →
-- present), and sent at the end as one variadic HDEL, HSET, ZREM and ZADD per key: per document there are a dozen
-- of each, and one call per key per batch costs far less than one per document. Reads of hashes go through hget,
-- which sees the buffer, so a document written twice in one call reads its own first write.
local hashes, zsets = {}, {}
local function hset(key, field, value)
  local t = hashes[key]
  if not t then t = {}; hashes[key] = t end
  t[field] = value
end
local function hdel(key, field) hset(key, field, false) end
local function hget(key, field)
  local t = hashes[key]
  if t then
    local v = t[field]
    if v ~= nil then return v end
  end
  return redis.call('HGET', key, field)
end
local function zset(key, m, present)
  local t = zsets[key]
  if not t then t = {}; zsets[key] = t end
  t[m] = present
end
local function flushWrites()
  for key, t in pairs(hashes) do
    local sets, dels = {}, {}
    for f, v in pairs(t) do
      if v then sets[#sets + 1] = f; sets[#sets + 1] = v else dels[#dels + 1] = f end
    end
    for i = 1, #dels, 4000 do redis.call('HDEL', key, unpack(dels, i, math.min(i + 3999, #dels))) end
    for i = 1, #sets, 4000 do redis.call('HSET', key, unpack(sets, i, math.min(i + 3999, #sets))) end
  end
  for key, t in pairs(zsets) do
    local adds, removes = {}, {}
    for m, present in pairs(t) do
      if present then adds[#adds + 1] = 0; adds[#adds + 1] = m else removes[#removes + 1] = m end
    end
    for i = 1, #removes, 4000 do redis.call('ZREM', key, unpack(removes, i, math.min(i + 3999, #removes))) end
    for i = 1, #adds, 4000 do redis.call('ZADD', key, unpack(adds, i, math.min(i + 3999, #adds))) end
  end
end

-- Posting prefixes (C:w:<column>:) → their vocabulary keys.
local vocabularies = {}
local function postingPrefix(C, col)
  local prefix = C .. 'w:' .. col .. ':'
  if not vocabularies[prefix] then vocabularies[prefix] = { C .. 'v:' .. col, C .. 'y:' .. col .. ':' } end
  return prefix
end
local function flushMemberships()
  for prefix, byPrefix in pairs(memberships) do
    local vocabulary = vocabularies[prefix]
    local grown, shrunk = {}, {}
    for suffix, m in pairs(byPrefix) do
      local key = prefix .. suffix
      local adds, removes = {}, {}
      for h, present in pairs(m) do
        if present then adds[#adds + 1] = h else removes[#removes + 1] = h end
      end
      srem(key, removes)
      sadd(key, adds)
      if #adds > 0 then grown[#grown + 1] = suffix elseif #removes > 0 then shrunk[#shrunk + 1] = suffix end
    end
    if vocabulary then updateVocabulary(prefix, vocabulary[1], vocabulary[2], grown, shrunk) end
  end
end

-- Moves a document's memberships from the old entry to the new one (nil: none), touching only what changed.
-- skipSets: a bulk commit's new document, whose set and posting memberships the client adds.
local function reindex(C, h, oid, old, new, texts, packs, skipSets)
  local oldS, newS = pairsToMap(old and old.s or {}), pairsToMap(new and new.s or {})
  for f, k in pairs(oldS) do
    if newS[f] ~= k then
      zset(C .. 'z:' .. f, k .. oid .. h, false)
      if newS[f] == nil then hdel(C .. 'k:' .. f, h) end
    end
  end
  for f, k in pairs(newS) do
    if oldS[f] ~= k then
      zset(C .. 'z:' .. f, k .. oid .. h, true)
      hset(C .. 'k:' .. f, h, k .. oid .. h)
    end
  end
  local oldT, newT = toSet(old and old.t or {}), toSet(new and new.t or {})
  local setPrefix = C .. 's:'
  for s in pairs(oldT) do if not newT[s] then member(setPrefix, s, h, false) end end
  if not skipSets then
    for s in pairs(newT) do if not oldT[s] then member(setPrefix, s, h, true) end end
  end
  local oldX, newX = toSet(old and old.x or {}), toSet(new and new.x or {})
  for col in pairs(oldX) do
    if not newX[col] then
      local text = hget(C .. 'x:' .. col, h) or ''
      local prefix = postingPrefix(C, col)
      for tok in pairs(tokensOf(text)) do member(prefix, tok, h, false) end
      hdel(C .. 'x:' .. col, h)
    end
  end
  for col in pairs(newX) do
    local text = texts[col]
    local prev = nil
    if oldX[col] then prev = hget(C .. 'x:' .. col, h) or '' end
    if prev ~= text then
      local prefix = postingPrefix(C, col)
      if skipSets then
        -- the client adds them
      elseif prev then
        local b = sentTokens(packs[col])
        local a = tokensOf(prev)
        for tok in pairs(a) do if not b[tok] then member(prefix, tok, h, false) end end
        for tok in pairs(b) do if not a[tok] then member(prefix, tok, h, true) end end
      else
        for tok in string.gmatch(packs[col], '[^ ]+') do member(prefix, tok, h, true) end
      end
      -- An empty text is not stored: read back, an absent one is '' to every reader.
      if text == '' then hdel(C .. 'x:' .. col, h) else hset(C .. 'x:' .. col, h, text) end
    end
  end
end

-- Partition orders (IndexEntry.partitions): an entry names its partition fields (P); per value of such a field (its
-- set suffix <field>:ord(value) in t) the document is in C:q:<field>:id as ord(value)·oid·handle and, per sort key
-- in s, in C:q:<field>:<key> as ord(value)·ord(key)·oid·handle. As zset suffix → member prefix (oid·handle follow).
local function partitionOrders(e)
  local t = {}
  if not e or not e.P then return t end
  for _, f in ipairs(e.P) do
    local prefix = f .. ':'
    for _, suffix in ipairs(e.t) do
      if string.sub(suffix, 1, #prefix) == prefix then
        local pv = string.sub(suffix, #prefix + 1)
        local function add(z, m)
          local ms = t[z]
          if not ms then ms = {}; t[z] = ms end
          ms[m] = true
        end
        add(prefix .. 'id', pv)
        for i = 1, #e.s, 2 do add(prefix .. e.s[i], pv .. e.s[i + 1]) end
      end
    end
  end
  return t
end
-- Only memberships that changed are removed or added.
local function repartition(C, h, oid, old, new)
  local a, b = partitionOrders(old), partitionOrders(new)
  for z, ms in pairs(a) do
    for m in pairs(ms) do
      if not (b[z] and b[z][m]) then zset(C .. 'q:' .. z, m .. oid .. h, false) end
    end
  end
  for z, ms in pairs(b) do
    for m in pairs(ms) do
      if not (a[z] and a[z][m]) then zset(C .. 'q:' .. z, m .. oid .. h, true) end
    end
  end
end

local fresh = {}
local marked = {}
local w = 0
for _, section in ipairs(sections) do
  local G = section.G
  local function collectionKey(c)
    if G == 0 then return P .. 'c:' .. c .. ':' end
    return P .. 'g' .. G .. ':c:' .. c .. ':'
  end
  for _ = 1, section.writes do
    w = w + 1
    local C, oid, op = collectionKey(arg()), arg(), arg()
    local h = hget(C .. 'i', oid)
    fresh[w] = ''
    local old = nil
    if h then old = cmsgpack.unpack(hget(C .. 'm', h)) end
    if op == 'P' then
      local json = arg()
      local new, texts, packs = { s = {}, t = {}, x = {} }, {}, {}
      for _ = 1, tonumber(arg()) do
        new.s[#new.s + 1] = arg()
        new.s[#new.s + 1] = arg()
      end
      for _ = 1, tonumber(arg()) do new.t[#new.t + 1] = arg() end
      for _ = 1, tonumber(arg()) do
        local col = arg()
        new.x[#new.x + 1] = col
        texts[col] = arg()
        packs[col] = arg()
      end
      new.P = {}
      for _ = 1, tonumber(arg()) do new.P[#new.P + 1] = arg() end
      if not h then
        h = tostring(redis.call('INCR', C .. 'seq'))
        if bulk then fresh[w] = h end
        hset(C .. 'i', oid, h)
        hset(C .. 'o', h, oid)
        zset(C .. 'z:id', oid .. h, true)
      end
      -- The collection's text is indexed by tokens (QUERY falls back to scanning the text where this is absent).
      if not marked[C] then
        marked[C] = true
        redis.call('SET', C .. 'tx', '1')
      end
      hset(C .. 'd', oid, json)
      reindex(C, h, oid, old, new, texts, packs, fresh[w] ~= '')
      repartition(C, h, oid, old, new)
      hset(C .. 'm', h, cmsgpack.pack(new))
    elseif h then
      reindex(C, h, oid, old, nil, {}, {})
      repartition(C, h, oid, old, nil)
      hdel(C .. 'd', oid)
      hdel(C .. 'i', oid)
      hdel(C .. 'o', h)
      hdel(C .. 'm', h)
      zset(C .. 'z:id', oid .. h, false)
    end
  end
end
flushWrites()
flushMemberships()
for _, section in ipairs(sections) do
  if section.checkpoint == '' then
    -- a bulk commit's earlier steps: the checkpoint moves with the last
  elseif section.staged then
    redis.call('HSET', P .. 'gen:staged-checkpoints', section.projection, section.checkpoint)
  else
    redis.call('HSET', P .. 'checkpoints', section.projection, section.checkpoint)
  end
end
if bulk then return fresh end
return 1
