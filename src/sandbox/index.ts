/**
 * The sandbox: a faithful local emulator of the Data Service (tokens, filters, items in both path
 * forms, dictionaries, sliding-window limits, injectable faults, a world that evolves on the
 * clock), for tests, demos and benchmarks. See `startSandbox`.
 */
export { startSandbox, DEMO_KEY, DEFAULT_LIMITS } from './server.js';
export { BUSY_WORLD, BUSY_TEMPO, busyProfile } from './profiles.js';
export { basePathOf } from './routes.js';
export type {
  Sandbox,
  SandboxCounters,
  SandboxFaults,
  SandboxKey,
  SandboxLimits,
  SandboxOptions,
  SandboxUrls,
  SandboxWorld,
  TokenGrant,
  RouteName,
} from './types.js';
export type { WireEnvelope, WireEvent, WireItem, WireLeg, WireSubEvent } from './wire.js';
export type { WireDictionaries, WireOddsType, DictLang } from './dictionaries.js';
export type { WorldChange, WorldProfile } from './world-model.js';
export { arbProfit, middleProfits, overvalue, fairOdds } from './pricing.js';
