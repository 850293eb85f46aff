-- wrk script for the registry benchmark. Arguments (after `--`): a scenario name and, for most
-- scenarios, a file with one facility id per line. The token comes from REGISTRY_BENCH_TOKEN.
local scenario, ids_file = nil, nil
local threads = 0
local ids = {}
local counter = 0
local terms = {}
local pages = tonumber(os.getenv("REGISTRY_BENCH_PAGES") or "1")

-- Runs in the main state: give each thread its own number, so random streams differ.
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function init(args)
  scenario = args[1]
  ids_file = args[2]
  if ids_file then
    for line in io.lines(ids_file) do ids[#ids + 1] = line end
  end
  local terms_file = os.getenv("REGISTRY_BENCH_TERMS")
  if terms_file then
    for line in io.lines(terms_file) do terms[#terms + 1] = line end
  end
  math.randomseed(os.time() * 7919 + thread_id * 104729)
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("REGISTRY_BENCH_TOKEN")
  wrk.headers["Content-Type"] = "application/json"
end

local function random_id()
  return ids[math.random(#ids)]
end

-- A valid numeric CNPJ from 12 random digits (the check-digit rule of domain.md).
local function cnpj()
  local d = {}
  for i = 1, 12 do d[i] = math.random(0, 9) end
  d[1] = math.random(1, 9)
  local function dv(n, weights)
    local sum = 0
    for i = 1, n do sum = sum + d[i] * weights[i] end
    local r = sum % 11
    if r < 2 then return 0 else return 11 - r end
  end
  d[13] = dv(12, { 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2 })
  d[14] = dv(13, { 6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2 })
  return table.concat(d)
end

local function by_id()
  return wrk.format("GET", "/api/facility/" .. random_id())
end

-- A page drawn from the whole range, as people page through a long list.
local function random_page()
  return wrk.format("GET", "/api/facilities?pageSize=20&pageNum=" .. math.random(1, pages))
end

-- A term drawn from a large vocabulary (facility names and cities), URL-encoded.
local function search()
  local term = terms[math.random(#terms)]:gsub(" ", "%%20")
  return wrk.format("GET", "/api/facilities?q=" .. term)
end

local function create()
  counter = counter + 1
  local body = '{"name":"Bench ' .. counter .. '","companyName":"Bench Ltda","cnpj":"' .. cnpj() ..
    '","telephone":"(11) 3456-7890","department":"Medicina Nuclear",' ..
    '"address":[{"street":"Rua A, 1","city":"Campinas","state":"SP"}],' ..
    '"radioisotopes":[{"name":"F(18)","quantity":250}],"practices":["Diagnóstico"]}'
  return wrk.format("POST", "/api/facility/register/", nil, body)
end

local function edit()
  local body = '{"telephone":"(11) 3456-' .. string.format("%04d", math.random(0, 9999)) .. '"}'
  return wrk.format("PUT", "/api/facility/" .. random_id() .. "/edit", nil, body)
end

-- A registry's day: 60 % by id, 15 % random page, 15 % search, 7 % edit, 3 % create.
local function mixed()
  local r = math.random(100)
  if r <= 60 then return by_id()
  elseif r <= 75 then return random_page()
  elseif r <= 90 then return search()
  elseif r <= 97 then return edit()
  end
  return create()
end

local modes = {
  facility_by_id = by_id,
  random_page = random_page,
  search = search,
  create = create,
  edit = edit,
  mixed = mixed,
  login = function() return wrk.format("POST", "/api/login/", nil, os.getenv("REGISTRY_BENCH_LOGIN")) end,
}

function request()
  local mode = modes[scenario]
  if mode then return mode() end
  return wrk.format("GET", os.getenv("REGISTRY_BENCH_PATH"))
end
