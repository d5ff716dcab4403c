import type { DroneRow } from './database.js';

/*
 * Drone's columns as svc's types. The three drivers answer differently (SQLite and MySQL booleans are
 * 0/1, PostgreSQL's true/false; blobs are Buffers, or strings where SQLite kept text), columns added
 * by later Drone versions are missing from older databases, and some are NULL: each reader takes
 * any of these and gives the value Drone itself would have read, or its zero value.
 */

export function text(row: DroneRow, column: string): string {
  const value = row[column];
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  return '';
}

export function int(row: DroneRow, column: string): number {
  const value = row[column];
  if (value === null || value === undefined || value === '') return 0;
  const number = Number(value);
  return Number.isFinite(number) ? number : 0;
}

/** Drone keeps times in Unix seconds; svc in milliseconds. Zero stays zero ("never"). */
export function millis(row: DroneRow, column: string): number {
  return int(row, column) * 1000;
}

export function bool(row: DroneRow, column: string): boolean {
  const value = row[column];
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value === '1' || value === 't' || value === 'true';
  return int(row, column) !== 0;
}

export function bytes(row: DroneRow, column: string): Buffer {
  const value = row[column];
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value);
  return Buffer.from(text(row, column), 'utf8');
}

/** A JSON list of strings (stage and step `depends_on`); empty when missing or not such a list. */
export function stringList(row: DroneRow, column: string): string[] {
  const parsed = json(text(row, column));
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
}

/** A JSON map of strings (build `params`, stage `labels`); empty when missing or not such a map. */
export function stringMap(row: DroneRow, column: string): Record<string, string> {
  const parsed = json(text(row, column));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(
    Object.entries(parsed as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

function json(value: string): unknown {
  if (value.trim() === '') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}
