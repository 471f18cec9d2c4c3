--#include common
--#include partitionPage
local C = ARGV[1]
local offset = tonumber(ARGV[2])
local take = tonumber(ARGV[3])
if take < 0 then take = math.huge end
local p = 4
local function arg() local v = ARGV[p]; p = p + 1; return v end
local LOG2 = math.log(2)
local WALK_WEIGHT = 4

-- A partition hint ends ARGV: its tokens, then their count (0: none). The general path never reads it.
local hintCount = tonumber(ARGV[#ARGV])
if hintCount > 0 then
  local paged = partitionPage(C, offset, take, ARGV, #ARGV - hintCount - 1)
  if paged then return paged end
end

-- Byte order. Lua compares strings with strcoll, which is byte order only under the C locale: probe it.
local lt, sortBytes
if ('B' < 'a') and ('\127' < '\128') and ('\128' < '\255') and ('a\0b' < 'a\0c') and ('\195\169' > 'z') then
  lt = function(a, b) return a < b end
  sortBytes = function(list) table.sort(list) end
else
  lt = function(a, b)
    for i = 1, math.min(#a, #b) do
      local x, y = string.byte(a, i), string.byte(b, i)
      if x ~= y then return x < y end
    end
    return #a < #b
  end
  sortBytes = function(list) table.sort(list, lt) end
end

-- Members are ord(key)·ord(id)·handle (or ord(id)·handle in z:id): skip the prefix-free encodings.
local function skip(s, pos)
  if string.byte(s, pos) == 1 then return pos + 9 end
  return string.find(s, '\0', pos + 1, true) + 1
end
local function handleOf(m, isId)
  local pos = skip(m, 1)
  if not isId then pos = skip(m, pos) end
  return string.sub(m, pos)
end
local function oidsOf(hs) return chunked('HMGET', C .. 'o', hs) end
-- C:k:<key> holds ord(key)·ord(id)·handle, the order zset's member (a collection written before layout 2 holds
-- ord(key) alone): the key part of either, and whether a value is the whole member.
local function isMember(v) return skip(v, 1) <= #v end
-- The ids of handles the ordering has seen in members, so the page's documents need no HMGET of C:o.
local knownOids = {}

-- Search terms (needles): the term; its probe, whose trigrams find the vocabulary tokens containing it ('' when
-- it has no token piece of three bytes); whether the probe is the whole term (then the posting sets of those tokens
-- hold exactly the documents containing the term); the probe's trigrams.
local function readNeedle()
  local t = { term = arg(), probe = arg(), tris = {}, toks = {}, sizes = {}, hits = {} }
  t.exact = arg() == '1'
  for j = 1, tonumber(arg()) do t.tris[j] = arg() end
  return t
end

-- Whether the collection's text is indexed by tokens (COMMIT marks it); a collection written before the token
-- index (its rebuild is under way) is searched by scanning its text.
local tokenIndex = nil
local function indexed(t)
  if t.probe == '' then return false end
  if tokenIndex == nil then tokenIndex = redis.call('EXISTS', C .. 'tx') == 1 end
  return tokenIndex
end

-- The posting keys of a column's vocabulary tokens that contain the needle's probe (shared by the needles of a
-- query with the same probe: a search's filter and its relevance order look up the same terms).
local postingKeysOf = {}
local function postingKeys(t, col)
  local keys = t.toks[col]
  if keys then return keys end
  local id = col .. '\255' .. t.probe
  keys = postingKeysOf[id]
  if not keys then
    local tris = {}
    for j, tri in ipairs(t.tris) do tris[j] = C .. 'y:' .. col .. ':' .. tri end
    keys = {}
    for _, tok in ipairs(redis.call('SINTER', unpack(tris))) do
      if string.find(tok, t.probe, 1, true) then keys[#keys + 1] = C .. 'w:' .. col .. ':' .. tok end
    end
    -- Long tokens are listed apart from the trigram sets (see the vocabulary's upkeep); a site has few.
    for _, tok in ipairs(redis.call('SMEMBERS', C .. 'y:' .. col .. ':' .. '${LONG_TOKENS}')) do
      if string.find(tok, t.probe, 1, true) then keys[#keys + 1] = C .. 'w:' .. col .. ':' .. tok end
    end
    postingKeysOf[id] = keys
  end
  t.toks[col] = keys
  return keys
end

-- Sizes of posting sets, read once per query.
local cardOf = {}
local function card(key)
  local c = cardOf[key]
  if not c then
    c = redis.call('SCARD', key)
    cardOf[key] = c
  end
  return c
end

-- The documents whose columns hold a token containing the probe, as a list and a set.
local function postingUnion(t, cols)
  local seen, out = {}, {}
  for _, col in ipairs(cols) do
    local keys = postingKeys(t, col)
    for i = 1, #keys, 1000 do
      for _, h in ipairs(redis.call('SUNION', unpack(keys, i, math.min(i + 999, #keys)))) do
        if not seen[h] then seen[h] = true; out[#out + 1] = h end
      end
    end
  end
  return out, seen
end

-- An upper bound of postingUnion's size: the sum of the posting sets' sizes.
local function postingSize(t, cols)
  local id = table.concat(cols, '\255')
  local size = t.sizes[id]
  if size then return size end
  size = 0
  for _, col in ipairs(cols) do
    for _, key in ipairs(postingKeys(t, col)) do size = size + card(key) end
  end
  t.sizes[id] = size
  return size
end

-- The handles of hs in the posting sets of the needle's tokens in cols, as a set: tested with SMISMEMBER per token,
-- or, when that would send more handles than the posting sets hold, by listing the posting sets once.
local function postingHits(t, cols, hs)
  local id = table.concat(cols, '\255')
  if t.hits[id] then return t.hits[id] end
  local keys = {}
  for _, col in ipairs(cols) do
    for _, key in ipairs(postingKeys(t, col)) do keys[#keys + 1] = key end
  end
  if #keys * #hs > postingSize(t, cols) then
    local _, seen = postingUnion(t, cols)
    t.hits[id] = seen
    return seen
  end
  local hit, rest = {}, hs
  for _, key in ipairs(keys) do
    if #rest == 0 then break end
    local r = chunked('SMISMEMBER', key, rest)
    local left = {}
    for i, h in ipairs(rest) do
      if r[i] == 1 then hit[h] = true else left[#left + 1] = h end
    end
    rest = left
  end
  return hit
end

-- The filter program.
local parse
parse = function()
  local n = { op = arg() }
  local op = n.op
  if op == 'any' or op == 'all' or op == 'none' then
    n.keys = {}
    for i = 1, tonumber(arg()) do n.keys[i] = C .. 's:' .. arg() end
  elseif op == 'idin' or op == 'idnot' then
    local oids = {}
    for i = 1, tonumber(arg()) do oids[i] = arg() end
    n.hs, n.set = {}, {}
    for _, h in ipairs(chunked('HMGET', C .. 'i', oids)) do
      if h then
        n.hs[#n.hs + 1] = h
        n.set[h] = true
      end
    end
  elseif op == 'range' or op == 'idrange' then
    if op == 'range' then
      n.f = arg()
      n.z, n.k = C .. 'z:' .. n.f, C .. 'k:' .. n.f
    else
      n.z = C .. 'z:id'
    end
    n.lo, n.loIncl, n.hi, n.hiIncl = arg(), arg() == '1', arg(), arg() == '1'
    n.lexLo, n.lexHi = '-', '+'
    if n.lo ~= '' then
      if n.loIncl then n.lexLo = '[' .. n.lo else n.lexLo = '(' .. n.lo .. '\255' end
    end
    if n.hi ~= '' then
      if n.hiIncl then n.lexHi = '(' .. n.hi .. '\255' else n.lexHi = '(' .. n.hi end
    end
  elseif op == 'text' then
    n.cols, n.inc, n.exc = {}, {}, {}
    for i = 1, tonumber(arg()) do n.cols[i] = arg() end
    for i = 1, tonumber(arg()) do n.inc[i] = readNeedle() end
    for i = 1, tonumber(arg()) do n.exc[i] = readNeedle() end
  elseif op == 'and' or op == 'or' then
    n.kids = {}
    for i = 1, tonumber(arg()) do n.kids[i] = parse() end
  end
  return n
end

local function inRange(n, k)
  if n.lo ~= '' then
    if n.loIncl then
      if lt(k, n.lo) then return false end
    elseif not lt(n.lo, k) then return false end
  end
  if n.hi ~= '' then
    if n.hiIncl then
      if lt(n.hi, k) then return false end
    elseif not lt(k, n.hi) then return false end
  end
  return true
end

-- Whether a member ord(key)·ord(id)·handle lies within the node's lex bounds ('(' excludes the bound, '[' includes it).
local function inLex(n, m)
  if n.loB == nil then
    n.loB = n.lexLo ~= '-' and string.sub(n.lexLo, 2)
    n.loOpen = string.byte(n.lexLo, 1) == 40
    n.hiB = n.lexHi ~= '+' and string.sub(n.lexHi, 2)
    n.hiOpen = string.byte(n.lexHi, 1) == 40
  end
  if n.loB then
    if n.loOpen then
      if not lt(n.loB, m) then return false end
    elseif lt(m, n.loB) then return false end
  end
  if n.hiB then
    if n.hiOpen then
      if not lt(m, n.hiB) then return false end
    elseif lt(n.hiB, m) then return false end
  end
  return true
end

local function contains(text, term) return text and string.find(text, term, 1, true) ~= nil end

-- Sort keys read by range tests, per field and handle, so ordering the matches by that field reads them once.
local keysRead = {}

-- keep(n, hs, fromGen): the handles of hs that match n, in their order. fromGen: hs is gen(n), so the kids of a
-- conjunction that gen already applied exactly (n.covered) are not tested again.
local keep
keep = function(n, hs, fromGen)
  local op = n.op
  if #hs == 0 or op == 'T' then return hs end
  if op == 'F' then return {} end
  if op == 'any' or op == 'or' then
    local hit, rest = {}, hs
    for _, kid in ipairs(n.keys or n.kids) do
      local got
      if op == 'any' then
        local r = chunked('SMISMEMBER', kid, rest)
        got = {}
        for i, h in ipairs(rest) do if r[i] == 1 then got[#got + 1] = h end end
      else
        got = keep(kid, rest)
      end
      if #got > 0 then
        for _, h in ipairs(got) do hit[h] = true end
        local left = {}
        for _, h in ipairs(rest) do if not hit[h] then left[#left + 1] = h end end
        rest = left
      end
      if #rest == 0 then break end
    end
    local out = {}
    for _, h in ipairs(hs) do if hit[h] then out[#out + 1] = h end end
    return out
  end
  if op == 'all' or op == 'none' then
    local want = op == 'all' and 1 or 0
    local cur = hs
    for _, key in ipairs(n.keys) do
      local r = chunked('SMISMEMBER', key, cur)
      local left = {}
      for i, h in ipairs(cur) do if r[i] == want then left[#left + 1] = h end end
      cur = left
      if #cur == 0 then break end
    end
    return cur
  end
  if op == 'and' then
    local cur = hs
    for _, kid in ipairs(n.kids) do
      if not (fromGen and n.covered and n.covered[kid]) then cur = keep(kid, cur) end
      if #cur == 0 then break end
    end
    return cur
  end
  local out = {}
  if op == 'idin' or op == 'idnot' then
    local want = op == 'idin'
    for _, h in ipairs(hs) do if (n.set[h] == true) == want then out[#out + 1] = h end end
  elseif op == 'range' or op == 'idrange' then
    local ks
    if op == 'range' then
      ks = chunked('HMGET', n.k, hs)
      local read = keysRead[n.f]
      if not read then read = {}; keysRead[n.f] = read end
      for i, h in ipairs(hs) do read[h] = ks[i] end
    else
      ks = oidsOf(hs)
    end
    -- Sort keys' values (members, or ord(key) alone before layout 2) meet the lex bounds as ZRANGE BYLEX would.
    local test = inRange
    if op == 'range' then test = inLex end
    for i, h in ipairs(hs) do if ks[i] and test(n, ks[i]) then out[#out + 1] = h end end
  elseif op == 'text' then
    -- Terms the token index answers exactly first (set lookups); the stored text decides the others.
    local cur, inc, exc = hs, {}, {}
    for _, t in ipairs(n.inc) do
      if t.exact and indexed(t) then
        local hit, left = postingHits(t, n.cols, cur), {}
        for _, h in ipairs(cur) do if hit[h] then left[#left + 1] = h end end
        cur = left
        if #cur == 0 then return cur end
      else
        inc[#inc + 1] = t.term
      end
    end
    for _, t in ipairs(n.exc) do
      if t.exact and indexed(t) then
        local hit, left = postingHits(t, n.cols, cur), {}
        for _, h in ipairs(cur) do if not hit[h] then left[#left + 1] = h end end
        cur = left
        if #cur == 0 then return cur end
      else
        exc[#exc + 1] = t.term
      end
    end
    if #inc == 0 and #exc == 0 then return cur end
    local cols = {}
    for j, col in ipairs(n.cols) do cols[j] = chunked('HMGET', C .. 'x:' .. col, cur) end
    for i, h in ipairs(cur) do
      local ok = true
      for _, term in ipairs(inc) do
        local found = false
        for j = 1, #cols do
          if contains(cols[j][i], term) then found = true; break end
        end
        if not found then ok = false; break end
      end
      if ok then
        for _, term in ipairs(exc) do
          for j = 1, #cols do
            if contains(cols[j][i], term) then ok = false; break end
          end
          if not ok then break end
        end
      end
      if ok then out[#out + 1] = h end
    end
  else
    error('read model: unknown filter op ' .. tostring(op))
  end
  return out
end

-- est(n): size of a candidate superset gen(n) can list, or nil when only a scan would do.
local est
est = function(n)
  if n.estDone then return n.estValue end
  local op, e = n.op, nil
  if op == 'F' then e = 0
  elseif op == 'any' then
    e = 0
    for _, k in ipairs(n.keys) do e = e + redis.call('SCARD', k) end
  elseif op == 'all' then
    for _, k in ipairs(n.keys) do
      local c = redis.call('SCARD', k)
      if e == nil or c < e then e = c end
    end
  elseif op == 'idin' then e = #n.hs
  elseif op == 'range' or op == 'idrange' then e = redis.call('ZLEXCOUNT', n.z, n.lexLo, n.lexHi)
  elseif op == 'text' then
    for _, inc in ipairs(n.inc) do
      if indexed(inc) then
        local size = postingSize(inc, n.cols)
        if e == nil or size < e then e, n.best = size, inc end
      end
    end
  elseif op == 'or' then
    e = 0
    for _, kid in ipairs(n.kids) do
      local k = est(kid)
      if k == nil then e = nil; break end
      e = e + k
    end
  elseif op == 'and' then
    for _, kid in ipairs(n.kids) do
      local k = est(kid)
      if k ~= nil and (e == nil or k < e) then e, n.best = k, kid end
    end
  end
  n.estDone, n.estValue = true, e
  return e
end

local gen
gen = function(n)
  local op = n.op
  if op == 'F' then return {} end
  if op == 'any' then
    if #n.keys == 1 then return redis.call('SMEMBERS', n.keys[1]) end
    return redis.call('SUNION', unpack(n.keys))
  end
  if op == 'all' then return redis.call('SINTER', unpack(n.keys)) end
  if op == 'idin' then return n.hs end
  if op == 'range' or op == 'idrange' then
    local out = {}
    for i, m in ipairs(redis.call('ZRANGE', n.z, n.lexLo, n.lexHi, 'BYLEX')) do out[i] = handleOf(m, op == 'idrange') end
    return out
  end
  if op == 'and' then
    -- When the smallest candidate set is a set filter, intersect it with the conjunction's other set filters
    -- inside Redis (SINTER walks the smallest set) instead of testing its members one filter at a time.
    local keys, bestIsSet = {}, false
    for _, kid in ipairs(n.kids) do
      if kid.op == 'all' or (kid.op == 'any' and #kid.keys == 1) then
        for _, k in ipairs(kid.keys) do keys[#keys + 1] = k end
        if kid == n.best then bestIsSet = true end
      end
    end
    if bestIsSet and #keys > 1 then
      n.covered = {}
      for _, kid in ipairs(n.kids) do
        if kid.op == 'all' or (kid.op == 'any' and #kid.keys == 1) then n.covered[kid] = true end
      end
      return redis.call('SINTER', unpack(keys))
    end
    local b = n.best.op
    if b == 'any' or b == 'all' or b == 'idin' or b == 'range' or b == 'idrange' then n.covered = { [n.best] = true } end
    return gen(n.best)
  end
  local seen, out = {}, {}
  local function add(list)
    for _, h in ipairs(list) do
      if not seen[h] then seen[h] = true; out[#out + 1] = h end
    end
  end
  if op == 'text' then
    local list, set = postingUnion(n.best, n.cols)
    -- Exact for that term: keep then tests it by set lookups.
    if n.best.exact then n.best.hits[table.concat(n.cols, '\255')] = set end
    return list
  elseif op == 'or' then
    for _, kid in ipairs(n.kids) do add(gen(kid)) end
  end
  return out
end

local function allHandles()
  local out = {}
  for i, m in ipairs(redis.call('ZRANGE', C .. 'z:id', 0, -1)) do out[i] = handleOf(m, true) end
  return out
end

local function matches(n)
  if est(n) == nil then return keep(n, allHandles()) end
  return keep(n, gen(n), true)
end

-- Exact match count for set-only shapes, or nil.
local fastCount
fastCount = function(n, N)
  local op = n.op
  if op == 'T' then return N end
  if op == 'F' then return 0 end
  if op == 'idin' then return #n.hs end
  if op == 'idnot' then return N - #n.hs end
  if op == 'range' or op == 'idrange' then return est(n) end
  if op == 'all' then return redis.call('SINTERCARD', #n.keys, unpack(n.keys)) end
  if op == 'any' or op == 'none' then
    -- The union: the largest set whole, then the members of each smaller set absent from the larger ones.
    local sized = {}
    for i, k in ipairs(n.keys) do sized[i] = { k = k, c = redis.call('SCARD', k) } end
    table.sort(sized, function(a, b) return a.c > b.c end)
    local total = sized[1].c
    for i = 2, #sized do
      local ms = redis.call('SMEMBERS', sized[i].k)
      for j = 1, i - 1 do
        if #ms == 0 then break end
        local r = chunked('SMISMEMBER', sized[j].k, ms)
        local left = {}
        for x, h in ipairs(ms) do if r[x] == 0 then left[#left + 1] = h end end
        ms = left
      end
      total = total + #ms
    end
    if op == 'none' then return N - total end
    return total
  end
  if op == 'and' then
    local keys = {}
    for _, kid in ipairs(n.kids) do
      if kid.op == 'all' or (kid.op == 'any' and #kid.keys == 1) then
        for _, k in ipairs(kid.keys) do keys[#keys + 1] = k end
      else
        return nil
      end
    end
    return redis.call('SINTERCARD', #keys, unpack(keys))
  end
  return nil
end

-- Walks a zset between lex bounds in a direction, handing chunks of handles to visit until it returns true.
local function walk(zkey, lo, hi, rev, isId, first, visit)
  local size = first
  while true do
    local ms
    if rev then
      ms = redis.call('ZRANGE', zkey, hi, lo, 'BYLEX', 'REV', 'LIMIT', 0, size)
    else
      ms = redis.call('ZRANGE', zkey, lo, hi, 'BYLEX', 'LIMIT', 0, size)
    end
    local count = #ms
    if count == 0 then return end
    local hs = {}
    for i = 1, count do hs[i] = handleOf(ms[i], isId) end
    if visit(hs) then return end
    if count < size then return end
    if rev then hi = '(' .. ms[count] else lo = '(' .. ms[count] end
    if size < 4096 then size = size * 2 end
  end
end

local function zkeyOf(F)
  if F == nil then return C .. 'z:id' end
  return C .. 'z:' .. F
end

local function firstChunk(want)
  if want == math.huge then return 1024 end
  return math.floor(math.max(32, math.min(1024, want * 2)))
end

-- The slice [skip, skip + take) of hs ordered by F (nil: id): walk the order zset when hs is dense in it,
-- otherwise sort hs. Rows without the key follow, by id in the same direction.
local function orderSubset(hs, F, rev, skipN, takeN)
  local m = #hs
  local out = {}
  if m == 0 or takeN <= 0 or skipN >= m then return out end
  local isId = F == nil
  local zkey = zkeyOf(F)
  local nz = redis.call('ZCARD', zkey)
  local want = math.min(skipN + takeN, m)
  local walkCost = math.huge
  -- A walked member costs several times a sorted one (its handle is cut out of the member in Lua).
  if nz > 0 then walkCost = WALK_WEIGHT * want * nz / m end
  if walkCost < m * math.log(m + 1) / LOG2 * 2 then
    local wanted, keyed, seen = {}, {}, 0
    for _, h in ipairs(hs) do wanted[h] = true end
    walk(zkey, '-', '+', rev, isId, firstChunk(want * nz / m), function(chunk)
      for _, h in ipairs(chunk) do
        if wanted[h] then
          keyed[h] = true
          seen = seen + 1
          if seen > skipN then
            out[#out + 1] = h
            if #out >= takeN then return true end
          end
        end
      end
      return seen >= m
    end)
    if #out >= takeN or isId then return out end
    local rest = {}
    for _, h in ipairs(hs) do if not keyed[h] then rest[#rest + 1] = h end end
    hs, skipN, isId = rest, math.max(skipN - seen, 0), true
    if #hs == 0 or skipN >= #hs then return out end
  end
  local keys = nil
  if not isId then
    local read = keysRead[F]
    if read then
      keys = {}
      for i, h in ipairs(hs) do
        local k = read[h]
        if k == nil then keys = nil; break end
        keys[i] = k
      end
    end
    if keys == nil then keys = chunked('HMGET', C .. 'k:' .. F, hs) end
  end
  -- Sorted as plain strings, ord(key)·ord(id)·handle (ord(id)·handle without the key), like the order zsets'
  -- members: table.sort without a comparator compares in C, several times faster than through a Lua function.
  local oids = nil
  local function oidAt(i)
    if not oids then oids = oidsOf(hs) end
    return oids[i]
  end
  local keyed, missing = {}, {}
  for i, h in ipairs(hs) do
    local k = keys and keys[i]
    if k then
      if isMember(k) then keyed[#keyed + 1] = k else keyed[#keyed + 1] = k .. oidAt(i) .. h end
    else
      missing[#missing + 1] = oidAt(i) .. h
    end
  end
  sortBytes(keyed)
  sortBytes(missing)
  local i = 0
  for l, list in ipairs({ keyed, missing }) do
    local n = #list
    for j = 1, n do
      i = i + 1
      if i > skipN then
        local m = list[j]
        if rev then m = list[n - j + 1] end
        local from = 1
        if l == 1 then from = skip(m, 1) end
        local to = skip(m, from)
        local h = string.sub(m, to)
        knownOids[h] = string.sub(m, from, to - 1)
        out[#out + 1] = h
        if #out >= takeN then return out end
      end
    end
  end
  return out
end

-- A range on the order key itself, at the root or directly under a root 'and', bounds the walk.
local function rangeOn(n, F)
  local function same(x)
    return (x.op == 'range' and F ~= nil and x.f == F) or (x.op == 'idrange' and F == nil)
  end
  if same(n) then return n end
  if n.op == 'and' then
    for _, kid in ipairs(n.kids) do if same(kid) then return kid end end
  end
  return nil
end

-- Walks the order zset testing chunks until the page is full or all total matches were seen; rows
-- without the key follow by walking z:id.
local function pageByWalk(root, F, rev, skipN, takeN, total, N)
  local out, seen = {}, 0
  local isId = F == nil
  local zkey = zkeyOf(F)
  local lo, hi = '-', '+'
  local rng = rangeOn(root, F)
  if rng then lo, hi = rng.lexLo, rng.lexHi end
  local function visit(hs)
    for _, h in ipairs(keep(root, hs)) do
      seen = seen + 1
      if seen > skipN then
        out[#out + 1] = h
        if #out >= takeN then return true end
      end
    end
    return seen >= total
  end
  if root.op == 'T' or root == rng then
    -- Every entry within the bounds matches: let Redis skip the offset.
    local count = -1
    if takeN ~= math.huge then count = takeN end
    local ms
    if rev then
      ms = redis.call('ZRANGE', zkey, hi, lo, 'BYLEX', 'REV', 'LIMIT', skipN, count)
    else
      ms = redis.call('ZRANGE', zkey, lo, hi, 'BYLEX', 'LIMIT', skipN, count)
    end
    for i, m in ipairs(ms) do out[i] = handleOf(m, isId) end
    if #ms > 0 then seen = skipN + #ms else seen = math.min(skipN, redis.call('ZCARD', zkey)) end
  else
    walk(zkey, lo, hi, rev, isId, firstChunk(math.min(skipN + takeN, total) * N / total), visit)
  end
  if #out < takeN and seen < total and not isId then
    local kkey = C .. 'k:' .. F
    walk(C .. 'z:id', '-', '+', rev, true, 256, function(hs)
      local ks = chunked('HMGET', kkey, hs)
      local bare = {}
      for i, h in ipairs(hs) do if not ks[i] then bare[#bare + 1] = h end end
      return visit(bare)
    end)
  end
  return out
end

local root = parse()
local N = redis.call('ZCARD', C .. 'z:id')
local order = arg()
local page, total = {}, 0

if order == 'field' then
  local isId, F, rev = arg() == '1', arg(), arg() == 'desc'
  if isId then F = nil end
  total = fastCount(root, N)
  if total == nil then
    local ms = matches(root)
    total = #ms
    page = orderSubset(ms, F, rev, offset, take)
  elseif total > 0 and take > 0 and offset < total then
    -- Walking: about min(offset + take, total) · N / total members, each cut out in Lua and tested (WALK_WEIGHT).
    -- Listing: the candidates (a SINTER or SMEMBERS in Redis, cheap per member), then sorting the total matches.
    local walkCost = WALK_WEIGHT * math.min(offset + take, total) * N / total
    local e = est(root)
    if e ~= nil and e / 8 + total * math.log(total + 2) / LOG2 * 2 < walkCost then
      page = orderSubset(keep(root, gen(root), true), F, rev, offset, take)
    else
      page = pageByWalk(root, F, rev, offset, take, total, N)
    end
  end
else
  local ms = matches(root)
  total = #ms
  local consumed = 0
  -- Each segment of the order gets its share of the page.
  local function segment(hs, F, rev)
    if #page < take and consumed + #hs > offset then
      for _, h in ipairs(orderSubset(hs, F, rev, math.max(0, offset - consumed), take - #page)) do page[#page + 1] = h end
    end
    consumed = consumed + #hs
  end
  if order == 'list' then
    local matched, placed = {}, {}
    for _, h in ipairs(ms) do matched[h] = true end
    local isId, values = arg() == '1', {}
    for i = 1, tonumber(arg()) do values[i] = arg() end
    local idHandles = nil
    if isId then idHandles = chunked('HMGET', C .. 'i', values) end
    for i = 1, #values do
      if #page >= take then break end
      local listed
      if isId then listed = { idHandles[i] } else listed = redis.call('SMEMBERS', C .. 's:' .. values[i]) end
      local bucket = {}
      for _, h in ipairs(listed) do
        if h and matched[h] and not placed[h] then
          placed[h] = true
          bucket[#bucket + 1] = h
        end
      end
      segment(bucket, nil, false)
    end
    if #page < take then
      local rest = {}
      for _, h in ipairs(ms) do if not placed[h] then rest[#rest + 1] = h end end
      segment(rest, nil, false)
    end
  else
    local phrase, terms = readNeedle(), {}
    for i = 1, tonumber(arg()) do terms[i] = readNeedle() end
    local title, excerpt, content = arg(), arg(), arg()
    local thenIsId, thenF, thenRev = arg() == '1', arg(), arg() == 'desc'
    if thenIsId then thenF = nil end
    -- has(t, col, hs): the handles of hs whose column contains the needle, as a set: from the token index when it
    -- answers the needle exactly, otherwise from the stored text (read once per column and list).
    local texts = {}
    local function has(t, col, hs)
      local found = {}
      if t.term == '' or #hs == 0 then return found end
      if t.exact and indexed(t) then return postingHits(t, { col }, hs) end
      local read = texts[col]
      if not read or read.hs ~= hs then
        read = { hs = hs, text = chunked('HMGET', C .. 'x:' .. col, hs) }
        texts[col] = read
      end
      for i, h in ipairs(hs) do
        if contains(read.text[i], t.term) then found[h] = true end
      end
      return found
    end
    local ranks, rest = { {}, {}, {}, {}, {}, {} }, {}
    local phraseInTitle = has(phrase, title, ms)
    local termsInTitle = {}
    for i, term in ipairs(terms) do termsInTitle[i] = has(term, title, ms) end
    for _, h in ipairs(ms) do
      local r = nil
      if phraseInTitle[h] then r = 1
      elseif #terms > 0 then
        local all, any = true, false
        for i = 1, #terms do
          if termsInTitle[i][h] then any = true else all = false end
        end
        if all then r = 2 elseif any then r = 3 end
      end
      if r then table.insert(ranks[r], h) else rest[#rest + 1] = h end
    end
    if phrase.term ~= '' and #rest > 0 then
      local inExcerpt = has(phrase, excerpt, rest)
      local later = {}
      for _, h in ipairs(rest) do
        if inExcerpt[h] then table.insert(ranks[4], h) else later[#later + 1] = h end
      end
      local inContent = has(phrase, content, later)
      for _, h in ipairs(later) do
        if inContent[h] then table.insert(ranks[5], h) else table.insert(ranks[6], h) end
      end
    else
      for _, h in ipairs(rest) do table.insert(ranks[6], h) end
    end
    for r = 1, 6 do segment(ranks[r], thenF, thenRev) end
  end
end

local result = { total }
if #page > 0 then
  local oids = {}
  for i, h in ipairs(page) do
    oids[i] = knownOids[h]
    if not oids[i] then oids = oidsOf(page); break end
  end
  for i, doc in ipairs(chunked('HMGET', C .. 'd', oids)) do result[i + 1] = doc end
end
return result
