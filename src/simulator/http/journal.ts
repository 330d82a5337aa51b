/**
 * What the simulator remembers of the API requests it received: a count per operation
 * (`GET /__sim/stats`) and the latest requests as received (`GET /__sim/requests`), so that a
 * test can assert what the gateway sent upstream.
 */
import type { IncomingMessage } from 'node:http';
import { header } from './io.js';

export interface JournalHeaders {
  'x-job-uuid'?: string;
  'x-web-hook'?: string;
  'x-request-id'?: string;
  authorization?: string;
  'x-tenant-id'?: string;
  /** The W3C trace context the gateway propagates (its upstream call's span). */
  traceparent?: string;
}

/** One API request as received. */
export interface JournalEntry {
  operation: string;
  method: string;
  path: string;
  /** The raw query string without `?` (empty when none). */
  query: string;
  headers: JournalHeaders;
  /** Parsed JSON body; raw text when it was not JSON; null when empty. */
  body: unknown;
}

export interface SimulatorStats {
  total: number;
  byOperation: Record<string, number>;
}

export interface Journal {
  record(entry: JournalEntry): void;
  /** The entries kept, oldest first. */
  entries(): readonly JournalEntry[];
  stats(): SimulatorStats;
  /** Forgets every count and entry. */
  reset(): void;
}

/** A journal that keeps the latest `limit` entries (the counts cover every request). */
export function createJournal(limit: number): Journal {
  let counts = new Map<string, number>();
  let total = 0;
  let entries: JournalEntry[] = [];
  return {
    record(entry) {
      total++;
      counts.set(entry.operation, (counts.get(entry.operation) ?? 0) + 1);
      entries.push(entry);
      if (entries.length > limit) entries = entries.slice(-limit);
    },
    entries: () => entries,
    stats: () => ({ total, byOperation: Object.fromEntries(counts) }),
    reset() {
      counts = new Map();
      total = 0;
      entries = [];
    },
  };
}

/** The headers a journal entry keeps. */
export function journalHeaders(request: IncomingMessage): JournalHeaders {
  const headers: JournalHeaders = {};
  for (const name of ['x-job-uuid', 'x-web-hook', 'x-request-id', 'authorization', 'x-tenant-id', 'traceparent'] as const) {
    const value = header(request, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}
