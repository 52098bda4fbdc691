#!/usr/bin/env node
// Generates FSRS reference vectors with ts-fsrs and times ts-fsrs replaying
// them. See README.md in this folder.
//
//   node fsrs-vs-ts.mjs install DIR
//   node fsrs-vs-ts.mjs generate --seed N [--cards N] [--mode standard|varied]
//                                [--fuzz] [--out FILE] [--ts-fsrs DIR]
//   node fsrs-vs-ts.mjs time --file FILE [--seconds S] [--runs N] [--ts-fsrs DIR]
//
// Without --ts-fsrs, ts-fsrs is installed with npm into a fresh temporary
// folder that is removed on exit. The version is pinned: the vectors and the
// Go implementation follow ts-fsrs 5.4.2 exactly.

import { execFileSync } from 'node:child_process'
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const TS_FSRS = 'ts-fsrs@5.4.2'
const DAY = 86_400_000
const MINUTE = 60_000

function usage(msg) {
  if (msg) console.error(`fsrs-vs-ts: ${msg}`)
  console.error(`usage:
  node fsrs-vs-ts.mjs install DIR
  node fsrs-vs-ts.mjs generate --seed N [--cards N] [--mode standard|varied] [--fuzz] [--out FILE] [--ts-fsrs DIR]
  node fsrs-vs-ts.mjs time --file FILE [--seconds S] [--runs N] [--ts-fsrs DIR]`)
  process.exit(2)
}

function parseFlags(args, spec) {
  const out = {}
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, '')
    if (!(name in spec) || !args[i].startsWith('--')) usage(`unknown argument ${args[i]}`)
    if (spec[name] === 'bool') {
      out[name] = true
    } else {
      if (i + 1 >= args.length) usage(`--${name} needs a value`)
      out[name] = spec[name] === 'num' ? Number(args[++i]) : args[++i]
      if (spec[name] === 'num' && !Number.isFinite(out[name])) usage(`--${name} needs a number`)
    }
  }
  return out
}

// install puts ts-fsrs into dir/node_modules with the ordinary npm client.
function install(dir) {
  execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', TS_FSRS], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

// loadTsFsrs imports ts-fsrs from dir, installing it into a temporary folder
// when dir is not given.
async function loadTsFsrs(dir) {
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'ts-fsrs-'))
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    install(dir)
  }
  const entry = join(dir, 'node_modules', 'ts-fsrs', 'dist', 'index.mjs')
  if (!existsSync(entry)) throw new Error(`ts-fsrs not found in ${dir}; run: node fsrs-vs-ts.mjs install ${dir}`)
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', 'ts-fsrs', 'package.json'), 'utf8'))
  if (`ts-fsrs@${pkg.version}` !== TS_FSRS) throw new Error(`found ts-fsrs ${pkg.version} in ${dir}, want ${TS_FSRS}`)
  return { lib: await import(pathToFileURL(entry).href), version: pkg.version }
}

// mulberry32: a small, well-known 32-bit PRNG, enough to make the generated
// files reproducible from their seed.
function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = (rand, xs) => xs[Math.floor(rand() * xs.length)]
const between = (rand, lo, hi) => lo + rand() * (hi - lo)
const intBetween = (rand, lo, hi) => Math.floor(between(rand, lo, hi + 1))

// Ratings: about 15% Again, 10% Hard, 65% Good, 10% Easy.
function drawRating(rand, marathon) {
  const u = rand()
  if (marathon) return u < 0.05 ? 2 : u < 0.5 ? 3 : 4
  return u < 0.15 ? 1 : u < 0.25 ? 2 : u < 0.9 ? 3 : 4
}

const LATEST = Date.UTC(9000, 0, 1) // keep dates inside four-digit years

// nextReviewTime draws when the card is answered next, given the card the
// previous review produced. Whole seconds, never before the previous review.
function nextReviewTime(rand, card, marathon) {
  const last = card.last_review.getTime()
  const due = card.due.getTime()
  const sched = due - last
  let at
  const u = rand()
  if (sched < DAY) {
    // (re)learning step
    if (u < 0.1) at = last + rand() * sched // early
    else if (u < 0.55) at = due + rand() * 15 * MINUTE // about on time
    else if (u < 0.8) at = due + rand() * 12 * 60 * MINUTE // later the same day, or past midnight
    else at = due + between(rand, 1, 30) * DAY // days late
  } else if (marathon) {
    at = due + between(rand, 2, 5) * sched // very late, so stability grows fast
  } else if (u < 0.08) {
    at = last + rand() * 20 * 60 * MINUTE // same day or the next
  } else if (u < 0.15) {
    at = last + rand() * sched // early
  } else if (u < 0.6) {
    at = due + rand() * 0.2 * sched // on time or a little late
  } else if (u < 0.85) {
    at = due + rand() * sched // late
  } else if (u < 0.95) {
    at = due + between(rand, 1, 4) * sched // very late
  } else {
    at = due + rand() * 3 * 365 * DAY // years late
  }
  if (at > LATEST) at = due
  return new Date(Math.max(last, Math.round(at / 1000) * 1000))
}

function randomStart(rand) {
  const from = Date.UTC(2024, 0, 1)
  const to = Date.UTC(2026, 6, 1)
  let t = from + Math.floor(rand() * ((to - from) / 1000)) * 1000
  if (rand() < 0.12) {
    // start late in the UTC day so that learning steps cross midnight
    const midnight = Math.floor(t / DAY) * DAY
    t = midnight + (23 * 3600 + 30 * 60 + intBetween(rand, 0, 29 * 60 + 59)) * 1000
  }
  return new Date(t)
}

const STANDARD = (lib, shortTerm, fuzz) => ({
  name: shortTerm ? 'short_term' : 'long_term',
  request_retention: 0.9,
  maximum_interval: 36500,
  enable_fuzz: fuzz,
  enable_short_term: shortTerm,
  learning_steps: ['1m', '10m'],
  relearning_steps: ['10m'],
  w: [...lib.default_w],
})

const LEARNING_CHOICES = [[], ['1m'], ['1m', '10m'], ['5m', '30m', '2h'], ['10m', '1d'], ['1m', '1h', '2d'], ['30m', '12h']]
const RELEARNING_CHOICES = [[], ['10m'], ['5m', '20m'], ['10m', '1h', '1d'], ['2d'], ['3m', '10m', '30m', '6h']]

// variedConfig draws custom settings: weights spread around the defaults
// (sometimes at a bound), other retentions and caps, other step lists.
function variedConfig(lib, rand, fuzzFlag) {
  const shortTerm = rand() < 0.7
  const relearning = pick(rand, RELEARNING_CHOICES)
  const bounds = lib.CLAMP_PARAMETERS(lib.W17_W18_Ceiling, shortTerm)
  const raw = lib.default_w.map((v, i) => {
    const [lo, hi] = bounds[i]
    const u = rand()
    if (u < 0.05) return lo
    if (u < 0.1) return hi
    return Number(Math.min(Math.max(v * between(rand, 0.5, 1.6) + between(rand, -0.05, 0.05), lo), hi).toFixed(4))
  })
  const params = lib.generatorParameters({ w: raw, relearning_steps: relearning, enable_short_term: shortTerm })
  const maxIvl = rand() < 0.7 ? 36500 : Math.max(1, Math.round(Math.exp(between(rand, 0, Math.log(36500)))))
  return {
    name: 'varied',
    request_retention: Number(between(rand, 0.7, 0.97).toFixed(2)),
    maximum_interval: maxIvl,
    enable_fuzz: fuzzFlag || rand() < 0.5,
    enable_short_term: shortTerm,
    learning_steps: pick(rand, LEARNING_CHOICES),
    relearning_steps: relearning,
    w: Array.from(params.w), // as clipped by ts-fsrs, so every value is in range
  }
}

const STATE_NAMES = ['New', 'Learning', 'Review', 'Relearning']

async function generate(opts) {
  if (!Number.isInteger(opts.seed)) usage('generate needs --seed N')
  const cards = opts.cards ?? 300
  const mode = opts.mode ?? 'standard'
  if (mode !== 'standard' && mode !== 'varied') usage(`unknown --mode ${mode}`)
  const { lib, version } = await loadTsFsrs(opts['ts-fsrs'])
  const rand = mulberry32(opts.seed)
  const out = opts.out ? createWriteStream(opts.out) : process.stdout
  const stats = { cards: 0, reviews: 0, midnight: 0, sameDayReview: 0, lapses: 0, atCap: 0, overCap: 0, fuzz: 0 }

  for (let i = 1; i <= cards; i++) {
    const config = mode === 'standard' ? STANDARD(lib, i % 2 === 1, !!opts.fuzz) : variedConfig(lib, rand, !!opts.fuzz)
    const f = lib.fsrs(lib.generatorParameters(config))
    const start = randomStart(rand)
    const marathon = rand() < 0.06
    const n = intBetween(rand, 3, 15)
    let card = lib.createEmptyCard(start)
    const reviews = []
    for (let k = 0; k < n; k++) {
      const at = k === 0 ? start : nextReviewTime(rand, card, marathon)
      const rating = drawRating(rand, marathon)
      const preview = f.repeat(card, at)
      const next = f.next(card, at, rating).card
      const t = next.elapsed_days
      const isNew = card.state === lib.State.New
      reviews.push({
        review_time: at.toISOString(),
        rating,
        before: {
          state: card.state,
          state_name: STATE_NAMES[card.state],
          stability: card.stability,
          difficulty: card.difficulty,
          elapsed_days: t,
          retrievability: isNew ? null : f.forgetting_curve(t, card.stability),
          retrievability_api: f.get_retrievability(card, at, false),
        },
        after: {
          due: next.due.toISOString(),
          stability: next.stability,
          difficulty: next.difficulty,
          state: next.state,
          state_name: STATE_NAMES[next.state],
          scheduled_days: next.scheduled_days,
          elapsed_days: next.elapsed_days,
          reps: next.reps,
          lapses: next.lapses,
          learning_steps: next.learning_steps,
          last_review: next.last_review.toISOString(),
        },
        preview: lib.Grades.map((g) => {
          const c = preview[g].card
          return {
            rating: g,
            due: c.due.toISOString(),
            state: c.state,
            scheduled_days: c.scheduled_days,
            stability: c.stability,
            difficulty: c.difficulty,
          }
        }),
      })
      // coverage counters, reported on stderr
      const sinceLast = isNew ? 0 : at - card.last_review
      if (!isNew && t === 1 && sinceLast < DAY) stats.midnight++
      if (card.state === lib.State.Review && t === 0) stats.sameDayReview++
      if (next.lapses > card.lapses) stats.lapses++
      for (const g of lib.Grades) {
        const d = preview[g].card.scheduled_days
        if (d === config.maximum_interval) stats.atCap++
        if (d > config.maximum_interval) stats.overCap++
      }
      stats.reviews++
      card = next
    }
    if (config.enable_fuzz) stats.fuzz++
    stats.cards++
    const line = {
      id: `card-${String(i).padStart(4, '0')}`,
      generator: { library: 'ts-fsrs', version, fsrs: lib.FSRSVersion, seed: opts.seed },
      config,
      start: start.toISOString(),
      reviews,
    }
    out.write(JSON.stringify(line) + '\n')
  }
  if (out !== process.stdout) await new Promise((resolve) => out.end(resolve))
  console.error(
    `generated ${stats.cards} cards (${mode}), ${stats.reviews} reviews; midnight crossings ${stats.midnight}, ` +
      `same-day reviews in Review ${stats.sameDayReview}, lapses ${stats.lapses}, ` +
      `preview intervals at the cap ${stats.atCap}, above it ${stats.overCap}, cards with fuzz ${stats.fuzz}`,
  )
}

// replayAll answers every review of every card through ts-fsrs and returns
// a checksum of the scheduled days so the work cannot be skipped.
function replayAll(lib, cards) {
  let sum = 0
  for (const c of cards) {
    let card = lib.createEmptyCard(c.start)
    const f = c.f
    for (let i = 0; i < c.times.length; i++) {
      card = f.next(card, c.times[i], c.ratings[i]).card
      sum += card.scheduled_days
    }
  }
  return sum
}

async function time(opts) {
  if (!opts.file) usage('time needs --file FILE')
  const seconds = opts.seconds ?? 3
  const runs = opts.runs ?? 5
  const { lib } = await loadTsFsrs(opts['ts-fsrs'])
  const instances = new Map()
  const cards = readFileSync(opts.file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
  if (cards.length === 0) throw new Error(`no card in ${opts.file}`)
  let reviews = 0
  const prepared = cards.map((c) => {
    const key = JSON.stringify(c.config)
    if (!instances.has(key)) instances.set(key, lib.fsrs(lib.generatorParameters(c.config)))
    reviews += c.reviews.length
    return {
      f: instances.get(key),
      start: new Date(c.start),
      times: c.reviews.map((r) => new Date(r.review_time)),
      ratings: c.reviews.map((r) => r.rating),
      due: c.reviews.map((r) => r.after.due),
    }
  })

  // One checked pass: the replay must reproduce the file.
  for (const c of prepared) {
    let card = lib.createEmptyCard(c.start)
    for (let i = 0; i < c.times.length; i++) {
      card = c.f.next(card, c.times[i], c.ratings[i]).card
      if (card.due.toISOString() !== c.due[i]) throw new Error(`replay differs from ${opts.file}`)
    }
  }

  // Warm up the JIT, then time runs of at least `seconds` each.
  const warmEnd = performance.now() + 1000
  while (performance.now() < warmEnd) replayAll(lib, prepared)
  const rates = []
  let check = 0
  for (let r = 0; r < runs; r++) {
    let done = 0
    const t0 = process.hrtime.bigint()
    let elapsed = 0
    while (elapsed < seconds * 1e9) {
      check += replayAll(lib, prepared)
      done += reviews
      elapsed = Number(process.hrtime.bigint() - t0)
    }
    rates.push(done / (elapsed / 1e9))
  }
  rates.sort((a, b) => a - b)
  const median = rates[Math.floor(rates.length / 2)]
  console.log(
    `ts-fsrs ${TS_FSRS.split('@')[1]} node ${process.version}: ${cards.length} cards, ${reviews} reviews per pass, ` +
      `${runs} runs of >= ${seconds}s, median ${Math.round(median)} reviews/s ` +
      `(min ${Math.round(rates[0])}, max ${Math.round(rates[rates.length - 1])}) [checksum ${check % 1000}]`,
  )
  console.log(`TS_REVIEWS_PER_SEC=${Math.round(median)}`)
}

const [cmd, ...rest] = process.argv.slice(2)
try {
  switch (cmd) {
    case 'install':
      if (rest.length !== 1) usage('install needs DIR')
      install(rest[0])
      break
    case 'generate':
      await generate(parseFlags(rest, { seed: 'num', cards: 'num', mode: 'str', fuzz: 'bool', out: 'str', 'ts-fsrs': 'str' }))
      break
    case 'time':
      await time(parseFlags(rest, { file: 'str', seconds: 'num', runs: 'num', 'ts-fsrs': 'str' }))
      break
    default:
      usage(cmd ? `unknown command ${cmd}` : '')
  }
} catch (err) {
  console.error(`fsrs-vs-ts: ${err.message}`)
  process.exit(1)
}
