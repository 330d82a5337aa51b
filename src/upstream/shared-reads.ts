/**
 * Identical reads in flight share one exchange (`SHARE_UPSTREAM_GETS`): same operation, URL with
 * its query, and family headers (the same credential as the upstream reads it), whichever
 * requests they come from. Built on `SharedFlights`; writes and job polls never come here.
 */
import { protocolError, readSuccess } from './answers.js';
import type { Calls, UpstreamCall } from './calls.js';
import { DecodeError } from './decode.js';
import { callerGaveUp } from './failures.js';
import type { SharedFlights } from './shared-flights.js';
import type { CallOptions } from './types.js';

/** Reads `call`'s answer with `decode`, from the identical read in flight or from a new exchange. */
export type SharedRead = <Result>(call: UpstreamCall, callOptions: CallOptions | undefined, decode: (body: Record<string, unknown>) => Result) => Promise<Result>;

/**
 * The exchange (its credential gate, breaker, retries and `onRequest` report: one upstream call)
 * is made once; the caller that started it decodes the answer as soon as it arrives, as an
 * unshared read does (a parsed page kept waiting is what young-generation collections copy), and
 * the JSON object is handed on only when other callers wait for it, each decoding it for its own
 * demand (decoders never change it). The first caller's request id and address go upstream. A
 * caller whose signal aborts is rejected alone; the exchange is aborted when no caller is left.
 */
export function createSharedRead(flights: SharedFlights, calls: Calls): SharedRead {
  return async function readShared<Result>(call: UpstreamCall, callOptions: CallOptions | undefined, decode: (body: Record<string, unknown>) => Result): Promise<Result> {
    const { authorization = '', 'x-tenant-id': tenant = '' } = call.headers;
    const key = `${call.operation}\n${call.target.origin}${call.target.path}\n${authorization}\n${tenant}`;
    const callerSignal = callOptions?.signal;
    let started: { decoded: () => Result } | undefined;
    let body: Record<string, unknown> | undefined;
    try {
      body = await flights.run(key, callerSignal, (flight) =>
        calls.run(call, { ...callOptions, signal: flight.signal }, (answer) => {
          const parsed = readSuccess(call.operation, answer);
          const waiting = flight.land();
          // The caller that started the exchange may have left while others still wait.
          const stayed = callerSignal?.aborted !== true;
          if (stayed) started = decodeNow(call.operation, () => decode(parsed));
          return waiting > (stayed ? 1 : 0) ? parsed : undefined;
        }),
      );
    } catch (error) {
      if (callerSignal?.aborted && error === callerSignal.reason) throw callerGaveUp(call.operation, callerSignal, true);
      throw error;
    }
    if (started !== undefined) return started.decoded();
    return decodeNow(call.operation, () => decode(body!)).decoded();
  };
}

/** The operation whose reads are shared, from a flight's key (for the `onSharedRead` hook). */
export function operationOfKey(key: string): string {
  return key.slice(0, key.indexOf('\n'));
}

/**
 * Decodes a shared answer for one caller, now; `decoded()` gives the result or throws. A record
 * the decoder refuses is that caller's protocol error, not the exchange's.
 */
function decodeNow<T>(operation: string, decode: () => T): { decoded: () => T } {
  try {
    const value = decode();
    return { decoded: () => value };
  } catch (error) {
    const failure = error instanceof DecodeError ? protocolError(operation, error) : error;
    return {
      decoded: () => {
        throw failure;
      },
    };
  }
}
