/**
 * The runner protocol's JSON (rpc v2), shared by the server's routes (src/server/rpc) and the
 * runner's client: schemas, conversions from svc's domain types, and the stage filter rules.
 */
export * from './schemas.js';
export { lineJson, linesJson, readBatch, readBatchText, readLines, readUpload } from './lines.js';
export { buildToWire, repoToWire, stageToWire, stepToWire, toMillis, toSeconds } from './convert.js';
export { matchesFilter, matchesLimits, type FilterFacts, type RunnerLimits } from './filter.js';
