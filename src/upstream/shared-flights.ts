/**
 * `SharedFlights`: work in flight shared by every caller asking for the same key while it runs.
 * The upstream client uses it for identical GETs of one credential, so a wall of dashboards makes
 * one HTTP exchange instead of one per request. Nothing outlives the work: once it settles, the
 * next caller starts afresh, so an answer is never older than the exchange a caller joined.
 * `closeAll()` (a write finished) keeps every caller after it out of the exchanges already under
 * way, which may have been answered before the write: they start fresh ones; `close(group)` does
 * the same for the flights started in one group (the operation coalescing's: one credential's).
 *
 * Each caller may leave on its own signal: it is rejected alone. The work is aborted (through
 * the signal `start` was given) only when every caller has left.
 */

/** What the work of a flight is given. */
export interface FlightControl {
  /** Aborts once every caller has left. */
  readonly signal: AbortSignal;
  /**
   * The answer is here: closes the flight to newcomers and tells how many callers wait for it,
   * so the work can skip handing over what nobody else needs.
   */
  land(): number;
}

interface Flight<T> {
  readonly promise: Promise<T>;
  /** What `close(group)` closes it with. */
  readonly group: string | undefined;
  readonly controller: AbortController;
  /** Callers still waiting for the answer. */
  callers: number;
}

export class SharedFlights {
  private readonly flights = new Map<string, Flight<unknown>>();

  /** @param onJoin hears every caller that joined work already in flight (an exchange saved). */
  constructor(private readonly onJoin: (key: string) => void) {}

  /** Flights in progress (for tests and health). */
  get size(): number {
    return this.flights.size;
  }

  /**
   * Answers with the flight in progress under `key`, or starts one with `start` (in `group`, for
   * `close`). `signal` is the caller's own: when it aborts, this caller is rejected with its reason
   * and the others keep waiting.
   */
  run<T>(key: string, signal: AbortSignal | undefined, start: (flight: FlightControl) => Promise<T>, group?: string): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let flight = this.flights.get(key) as Flight<T> | undefined;
    if (flight === undefined) {
      flight = this.begin(key, start, group);
    } else {
      this.onJoin(key);
    }
    flight.callers += 1;
    return signal === undefined ? flight.promise : this.follow(key, flight, signal);
  }

  /** Lets the flights in progress finish for their callers, but lets no new caller join them. */
  closeAll(): void {
    this.flights.clear();
  }

  /** `closeAll()` for the flights started in `group` only. */
  close(group: string): void {
    for (const [key, flight] of this.flights) if (flight.group === group) this.flights.delete(key);
  }

  private begin<T>(key: string, start: (flight: FlightControl) => Promise<T>, group: string | undefined): Flight<T> {
    const controller = new AbortController();
    const end = (): void => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    };
    const flight: Flight<T> = {
      promise: start({
        signal: controller.signal,
        land: () => {
          end();
          return flight.callers;
        },
      }),
      group,
      controller,
      callers: 0,
    };
    this.flights.set(key, flight);
    // Whoever is still waiting hears the outcome; this only ends the flight (and keeps a flight
    // every caller left from being an unhandled rejection).
    flight.promise.then(end, end);
    return flight;
  }

  private follow<T>(key: string, flight: Flight<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        this.leave(key, flight, signal.reason);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  private leave(key: string, flight: Flight<unknown>, reason: unknown): void {
    flight.callers -= 1;
    if (flight.callers > 0) return;
    // Nobody wants the answer any more: a caller arriving now starts a fresh exchange.
    if (this.flights.get(key) === flight) this.flights.delete(key);
    flight.controller.abort(reason);
  }
}
